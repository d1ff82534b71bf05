import { createApiGatewayConnectionPush } from "../../shared/connections/apigateway-connection-push.js";
import type { ConnectionPush } from "../../shared/connections/connection-push.js";
import type { ConnectionStore } from "../../shared/connections/connection-store.js";
import { DynamoDBConnectionStore } from "../../shared/connections/dynamodb-connection-store.js";
import { unconfigured } from "../../shared/wiring/app-environment.js";
import type { TableRuntime } from "../../shared/wiring/app-environment.js";
import type { RuntimeResources } from "../../shared/wiring/app-from-env.js";
import { ENV } from "../../shared/config/config.js";
import type { Logger } from "../../shared/support/logger.js";

/**
 * The WebSocket ports of one container, from the same environment as the app
 * (shared/wiring/app-from-env.ts). A missing table or callback URL is a missing grant in the
 * stack: the port then fails with ConfigurationError when used, never silently.
 */
export function connectionStoreFromEnv(resources: TableRuntime): ConnectionStore {
  const { tableName } = resources.environment;
  return tableName
    ? new DynamoDBConnectionStore(resources.clients.dynamodb, tableName)
    : unconfigured<ConnectionStore>("The connection store", ENV.tableName);
}

export function connectionPushFromEnv(resources: RuntimeResources, connections: ConnectionStore, logger: Logger): ConnectionPush {
  const { webSocketCallbackUrl, region } = resources.environment;
  return webSocketCallbackUrl
    ? createApiGatewayConnectionPush({ endpoint: webSocketCallbackUrl, region, instrument: resources.instrument }, connections, { logger })
    : unconfigured<ConnectionPush>("Pushing to WebSocket connections", ENV.webSocketCallbackUrl);
}
