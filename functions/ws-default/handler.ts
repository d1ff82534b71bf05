// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import type { APIGatewayProxyResultV2 } from "aws-lambda";
import type { ConnectionPush } from "../../shared/connections/connection-push.js";
import { createWsFrameRouter } from "../../shared/app/ws-frame-router.js";
import type { WsFrameRouterDeps } from "../../shared/app/ws-frame-router.js";
import { handleMessage } from "../../shared/app/ws-lifecycle.js";
import { runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { sqsFromEnv } from "../../shared/wiring/sqs-from-env.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { connectionPushFromEnv, connectionStoreFromEnv } from "../_ws-shared/ws-runtime.js";
import type { Logger } from "../../shared/support/logger.js";

export interface WsDefaultDeps extends Omit<WsFrameRouterDeps, "logger"> {
  push: ConnectionPush;
  logger: Logger;
  /** Compared with the token's `exp` on every frame (tests pass a fixed one). */
  clock?: () => Date;
}

/**
 * `$default`: every client frame (API.md "WebSocket frames"). Answers go back through
 * PostToConnection to the caller's connection; the integration response is always 200.
 * Only a failure to push at all (not a gone client) fails the invocation, and is logged.
 */
export const createWsDefaultHandler = (deps: WsDefaultDeps) => {
  const router = createWsFrameRouter(deps);
  return async (event: unknown): Promise<APIGatewayProxyResultV2> => {
    try {
      return await handleMessage({ router, push: deps.push, logger: deps.logger, clock: deps.clock }, event);
    } catch (error) {
      deps.logger.error("WebSocket frame could not be answered", { error });
      throw error;
    }
  };
};

const { logger, tracer } = powertoolsObservability("skills-ws-default");
const resources = runtimeFromEnv(process.env, { instrument: tracer.instrument, sqs: sqsFromEnv });
const connections = connectionStoreFromEnv(resources);

export const handler = traced(
  tracer,
  "ws-default",
  createWsDefaultHandler({
    // No events: this function only enqueues; the lane worker publishes results.
    app: skillsAppFromEnv(resources, { logger, levelSnapshotWrites: false }),
    connections,
    push: connectionPushFromEnv(resources, connections, logger),
    logger,
  }),
);
