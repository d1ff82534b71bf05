// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import type { APIGatewayProxyResultV2 } from "aws-lambda";
import type { ConnectionStore } from "../../shared/connections/connection-store.js";
import { handleDisconnect } from "../../shared/app/ws-lifecycle.js";
import { tableRuntimeFromEnv } from "../../shared/wiring/app-environment.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { connectionStoreFromEnv } from "../_ws-shared/ws-runtime.js";
import type { Logger } from "../../shared/support/logger.js";

export interface WsDisconnectDeps {
  connections: ConnectionStore;
  logger: Logger;
}

/**
 * `$disconnect`: removes the connection and its subscriptions. API Gateway does not retry it;
 * a failure is logged and left to the items' TTL (and to GoneException clean-up on the next push).
 */
export const createWsDisconnectHandler =
  (deps: WsDisconnectDeps) =>
  async (event: unknown): Promise<APIGatewayProxyResultV2> => {
    try {
      return await handleDisconnect(deps, event);
    } catch (error) {
      deps.logger.error("WebSocket $disconnect clean-up failed; items expire by TTL", { error });
      return { statusCode: 200 };
    }
  };

const { logger, tracer } = powertoolsObservability("skills-ws-disconnect");

export const handler = traced(
  tracer,
  "ws-disconnect",
  createWsDisconnectHandler({
    connections: connectionStoreFromEnv(tableRuntimeFromEnv(process.env, { instrument: tracer.instrument })),
    logger,
  }),
);
