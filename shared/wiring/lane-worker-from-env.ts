import type { ConnectionPush } from "../connections/connection-push.js";
import type { ConnectionStore } from "../connections/connection-store.js";
import { DynamoDBConnectionStore } from "../connections/dynamodb-connection-store.js";
import { createWebSocketProcessEvents } from "../connections/websocket-process-events.js";
import type { LanePoisonHandler, LaneWorkerOptions } from "../lanes/lane-worker.js";
import { NoopProcessEvents } from "../steering/process-events.js";
import type { ProcessEvents } from "../steering/process-events.js";
import type { Logger } from "../support/logger.js";
import { ConfigurationError } from "../config/config-errors.js";
import type { RuntimeResources } from "./app-from-env.js";
import { ConnectionPushOnFirstUse } from "./ports-on-first-use.js";

/*
 * The lane worker's own ports: results pushed to WebSocket subscribers, poison records parked in
 * the DLQ. Apart from app-from-env.ts, so that no other function's bundle holds their `import()`:
 * each one splits the chunks an init loads (lane-worker-adapters.ts).
 */

/**
 * Pushes to the WebSocket API's management endpoint; its client is imported on the first push
 * (a turn pushes only to subscribers), the subscriber lookup is at hand from init.
 */
export function connectionPushOnFirstUse(
  resources: RuntimeResources,
  endpoint: string,
  connections: ConnectionStore,
  logger?: Pick<Logger, "warn">,
): ConnectionPush {
  const { region } = resources.environment;
  return new ConnectionPushOnFirstUse(async () =>
    (await import("./lane-worker-adapters.js")).createApiGatewayConnectionPush(
      { endpoint, region, instrument: resources.instrument },
      connections,
      logger ? { logger } : {},
    ),
  );
}

/**
 * Results and scheduled turns pushed to WebSocket subscribers when the function knows the
 * WebSocket API's callback URL and the table; otherwise nobody is told (state stays readable over HTTP).
 */
export function processEventsFromEnv(resources: RuntimeResources, logger?: Pick<Logger, "warn">): ProcessEvents {
  const { webSocketCallbackUrl, tableName } = resources.environment;
  if (!webSocketCallbackUrl || !tableName) return new NoopProcessEvents();
  const connections = new DynamoDBConnectionStore(resources.clients.dynamodb, tableName);
  return createWebSocketProcessEvents({
    connections,
    push: connectionPushOnFirstUse(resources, webSocketCallbackUrl, connections, logger),
  });
}

/** Poison lane records go to the DLQ at once when its URL is known; otherwise they wait for maxReceiveCount. */
export function laneDeadLetterFromEnv(resources: RuntimeResources): LanePoisonHandler | undefined {
  const url = resources.environment.laneDeadLetterQueueUrl;
  if (!url) return undefined;
  const deadLetter = resources.sqs?.deadLetter;
  if (!deadLetter)
    throw new ConfigurationError("The lane DLQ needs the lane worker's SQS adapters: pass `sqs: sqsOnFirstUse` to runtimeFromEnv");
  return deadLetter(url);
}

/** The lane worker's DLQ parking and redrive limit (createLaneWorkerHandler's options), as far as they are configured. */
export function laneWorkerOptionsFromEnv(resources: RuntimeResources): Pick<LaneWorkerOptions, "onPoison" | "maxReceiveCount"> {
  const onPoison = laneDeadLetterFromEnv(resources);
  const maxReceiveCount = resources.environment.laneMaxReceiveCount;
  return { ...(onPoison ? { onPoison } : {}), ...(maxReceiveCount !== undefined ? { maxReceiveCount } : {}) };
}
