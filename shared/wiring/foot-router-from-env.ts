import { createApiGatewayConnectionPush } from "../connections/apigateway-connection-push.js";
import { DynamoDBConnectionStore } from "../connections/dynamodb-connection-store.js";
import { FootRouter } from "../foot/foot-router.js";
import type { Logger } from "../support/logger.js";
import { footInvocationsFromEnv } from "./app-from-env.js";
import type { RuntimeResources } from "./app-from-env.js";

/**
 * FOOT scripts reach a client through the WebSocket API: with its callback URL and the table the
 * function can find subscribers, push the script and poll the answer. Without them there is no
 * route, and a FOOT script answers "ERROR: foot routing not available" (spec §13.5). Apart from
 * app-from-env.ts, which every full function loads at init, so that only the tool functions
 * load the management API client there.
 */
export function footRouterFromEnv(resources: RuntimeResources, logger?: Pick<Logger, "warn">): FootRouter | undefined {
  const { webSocketCallbackUrl, tableName, region } = resources.environment;
  if (!webSocketCallbackUrl || !tableName) return undefined;
  const connections = new DynamoDBConnectionStore(resources.clients.dynamodb, tableName);
  const push = createApiGatewayConnectionPush(
    { endpoint: webSocketCallbackUrl, region, instrument: resources.instrument },
    connections,
    logger ? { logger } : {},
  );
  return new FootRouter({ connections, push, invocations: footInvocationsFromEnv(resources) });
}
