import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { documentClientOf } from "../../shared/aws/dynamodb-client.js";
import { tenantOfRequestKey } from "../../shared/aws/dynamodb-keys.js";
import { DynamoDBRequestStore } from "../../shared/processes/dynamodb-request-store.js";
import type { RequestError } from "../../shared/processes/request-store.js";

/**
 * A request is recorded QUEUED before its message is sent (shared/steering/lane-requests.ts).
 * A `kill -9` between the two leaves a record that no lane message will ever settle, and a
 * client that does not retry would poll it forever. On start, after the journal was replayed
 * and before anything can enqueue, every QUEUED request with no message in the lane is failed.
 * The record holds no payload, so it cannot be re-enqueued; the error says what to do.
 */
export const ORPHANED_REQUEST_ERROR: RequestError = Object.freeze({
  code: "SERVICE_UNAVAILABLE",
  message: "The local stack stopped before this request reached its process lane; nothing was applied. Send it again with a new requestId.",
});

const identity = (tenant: string, processId: string, requestId: string): string => JSON.stringify([tenant, processId, requestId]);

/** (tenant, processId, requestId) of a lane message body; undefined for one that is not a lane message. */
function identityOfMessage(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as Record<string, unknown>;
    const { tenant, processId, requestId } = message;
    return typeof tenant === "string" && typeof processId === "string" && typeof requestId === "string"
      ? identity(tenant, processId, requestId)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Fails the QUEUED requests of `tableName` that none of `laneMessages` (bodies) carries; returns how many. */
export async function failOrphanedRequests(dynamodb: DynamoDBClient, tableName: string, laneMessages: readonly string[]): Promise<number> {
  const inLane = new Set(laneMessages.map(identityOfMessage).filter((id): id is string => id !== undefined));
  const store = new DynamoDBRequestStore(dynamodb, tableName);
  let failed = 0;
  const documents = documentClientOf(dynamodb);
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: "#entity = :request AND #status = :queued",
        ExpressionAttributeNames: { "#entity": "entity", "#status": "status" },
        ExpressionAttributeValues: { ":request": "request", ":queued": "QUEUED" },
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const raw of page.Items ?? []) {
      const item = raw as { pk?: string; processId?: string; requestId?: string };
      const tenant = item.pk === undefined ? undefined : tenantOfRequestKey(item.pk);
      if (tenant === undefined || item.processId === undefined || item.requestId === undefined) continue;
      if (inLane.has(identity(tenant, item.processId, item.requestId))) continue;
      await store.complete(tenant, item.processId, item.requestId, { status: "FAILED", error: ORPHANED_REQUEST_ERROR });
      failed += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return failed;
}
