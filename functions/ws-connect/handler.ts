// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import type { APIGatewayProxyResultV2 } from "aws-lambda";
import type { ConnectionStore } from "../../shared/connections/connection-store.js";
import { handleConnect } from "../../shared/app/ws-lifecycle.js";
import type { WsConnectLimits } from "../../shared/app/ws-lifecycle.js";
import { readConfig } from "../../shared/config/config.js";
import { tableRuntimeFromEnv } from "../../shared/wiring/app-environment.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import { connectionStoreFromEnv } from "../_ws-shared/ws-runtime.js";
import type { Logger } from "../../shared/support/logger.js";

export interface WsConnectDeps {
  connections: ConnectionStore;
  logger: Logger;
  limits?: WsConnectLimits;
  clock?: () => Date;
}

/** `$connect` (behind the token authorizer): registers the connection with its identity; no identity, no connection. */
export const createWsConnectHandler =
  (deps: WsConnectDeps) =>
  async (event: unknown): Promise<APIGatewayProxyResultV2> => {
    try {
      return await handleConnect(deps, event);
    } catch (error) {
      deps.logger.error("WebSocket $connect failed", { error });
      throw error;
    }
  };

const { logger, tracer } = powertoolsObservability("skills-ws-connect");

const config = readConfig(process.env, ["wsMaxConnectionsPerUser", "wsConnectRetryAfterSeconds"]);

export const handler = traced(
  tracer,
  "ws-connect",
  createWsConnectHandler({
    connections: connectionStoreFromEnv(tableRuntimeFromEnv(process.env, { instrument: tracer.instrument })),
    logger,
    limits: { maxConnectionsPerIdentity: config.wsMaxConnectionsPerUser, retryAfterSeconds: config.wsConnectRetryAfterSeconds },
  }),
);
