import type { WatchedRequest } from "./request-watcher.js";
import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TABLE_TTL_ATTRIBUTE } from "../aws/table-schema.js";
import { documentClientOf, isConditionalCheckFailed } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { requestItemKey } from "../aws/dynamodb-keys.js";
import { BaseRequestStore, parseRecord } from "./request-store-base.js";
import type { RequestStoreOptions } from "./request-store-base.js";
import type { RequestOutcome, RequestRecord } from "./request-store.js";

/**
 * RequestStore on the service table. The result is kept as a JSON string: an arbitrary result
 * (a tool's output) may nest deeper than DynamoDB's 32 map levels or hold numbers it cannot.
 */
export class DynamoDBRequestStore extends BaseRequestStore {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: RequestStoreOptions = {},
  ) {
    super(options);
    this.documents = documentClientOf(client);
  }

  protected async insertIfAbsent(tenant: string, record: RequestRecord, expiresAt: number): Promise<boolean> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...requestItemKey(tenant, record.processId, record.requestId),
            entity: "request",
            requestId: record.requestId,
            processId: record.processId,
            kind: record.kind,
            ...(record.fingerprint !== undefined ? { fingerprint: record.fingerprint } : {}),
            status: record.status,
            [TABLE_TTL_ATTRIBUTE]: expiresAt,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  protected async readItem(tenant: string, processId: string, requestId: string): Promise<unknown> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: requestItemKey(tenant, processId, requestId), ConsistentRead: true }),
    );
    return out.Item === undefined ? undefined : fromItem(out.Item);
  }

  /** One BatchGetItem for the waiting callers of the container; keys DynamoDB leaves unprocessed read as absent this round. */
  protected override async readItems(requests: readonly WatchedRequest[]): Promise<unknown[]> {
    if (requests.length === 0) return [];
    const keys = requests.map((r) => requestItemKey(r.tenant, r.processId, r.requestId));
    const out = await this.documents.send(
      new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
    );
    const byKey = new Map(
      (out.Responses?.[this.tableName] ?? []).map((item) => [`${String(item.pk)}\u0000${String(item.sk)}`, item] as const),
    );
    return keys.map((key) => {
      const item = byKey.get(`${key.pk}\u0000${key.sk}`);
      return item === undefined ? undefined : fromItem(item);
    });
  }

  protected async completeIfQueued(
    tenant: string,
    processId: string,
    requestId: string,
    outcome: RequestOutcome,
    expiresAt: number,
    settledAtMs: number,
  ): Promise<unknown> {
    const detail =
      outcome.status === "DONE"
        ? { set: "resultJson = :detail", value: JSON.stringify(outcome.result) }
        : { set: "#error = :detail", value: outcome.error };
    try {
      const out = await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestItemKey(tenant, processId, requestId),
          UpdateExpression: `SET #status = :status, ${detail.set}, #expiresAt = :expiresAt, settledAtMs = :settledAt`,
          ConditionExpression: "#status = :queued",
          ExpressionAttributeNames: {
            "#status": "status",
            "#expiresAt": TABLE_TTL_ATTRIBUTE,
            ...(outcome.status === "FAILED" ? { "#error": "error" } : {}),
          },
          ExpressionAttributeValues: {
            ":status": outcome.status,
            ":detail": detail.value,
            ":expiresAt": expiresAt,
            ":queued": "QUEUED",
            ":settledAt": settledAtMs,
          },
          ReturnValues: "ALL_NEW",
        }),
      );
      return out.Attributes === undefined ? undefined : fromItem(out.Attributes);
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }
}

/** A request item read elsewhere (a turn's BatchGetItem), as RequestStore.get answers it. */
export const requestRecordOfItem = (item: Record<string, unknown>): RequestRecord => parseRecord(fromItem(item));

const fromItem = (item: Record<string, unknown>): Record<string, unknown> => ({
  requestId: item.requestId,
  processId: item.processId,
  kind: item.kind,
  ...(typeof item.fingerprint === "string" ? { fingerprint: item.fingerprint } : {}),
  status: item.status,
  ...(typeof item.resultJson === "string" ? { result: JSON.parse(item.resultJson) as unknown } : {}),
  ...(item.error !== undefined ? { error: item.error } : {}),
  ...(typeof item.fingerprint === "string" ? { fingerprint: item.fingerprint } : {}),
  ...(typeof item.settledAtMs === "number" ? { settledAtMs: item.settledAtMs } : {}),
});
