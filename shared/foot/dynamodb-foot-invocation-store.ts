import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TABLE_TTL_ATTRIBUTE } from "../aws/table-schema.js";
import { documentClientOf, isConditionalCheckFailed } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import type { TableKey } from "../aws/dynamodb-keys.js";
import { FOOT_INVOCATION_TTL_SECONDS, FootInvocation } from "./foot-invocation-store.js";
import type { FootAnswer, FootInvocationStore, FootInvocationStoreOptions, NewFootInvocation } from "./foot-invocation-store.js";

/** Tenant first and URI-encoded parts, like every key of the table (processes/dynamodb-keys.ts). */
const footInvocationKey = (tenant: string, invocationId: string): TableKey => ({
  pk: `T#${encodeURIComponent(tenant)}#FOOT#${encodeURIComponent(invocationId)}`,
  sk: "FOOT",
});

/**
 * FootInvocationStore on the service table. The result and the logs are kept as JSON strings:
 * a script's result may nest deeper than DynamoDB's 32 map levels or hold numbers it cannot.
 */
export class DynamoDBFootInvocationStore implements FootInvocationStore {
  private readonly documents: DynamoDBDocumentClient;
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: FootInvocationStoreOptions = {},
  ) {
    this.documents = documentClientOf(client);
    this.ttlSeconds = options.ttlSeconds ?? FOOT_INVOCATION_TTL_SECONDS;
    this.now = options.now ?? Date.now;
  }

  async create(tenant: string, invocation: NewFootInvocation): Promise<void> {
    await this.documents.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...footInvocationKey(tenant, invocation.invocationId),
          entity: "foot-invocation",
          invocationId: invocation.invocationId,
          processId: invocation.processId,
          connectionId: invocation.connectionId,
          status: "PENDING",
          [TABLE_TTL_ATTRIBUTE]: this.expiresAt(),
        },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  }

  async get(tenant: string, invocationId: string): Promise<FootInvocation | undefined> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: footInvocationKey(tenant, invocationId), ConsistentRead: true }),
    );
    const item = out.Item;
    // TTL deletion is lazy: an expired item is gone as far as callers are concerned.
    if (item === undefined || (typeof item[TABLE_TTL_ATTRIBUTE] === "number" && item[TABLE_TTL_ATTRIBUTE] <= Math.floor(this.now() / 1000)))
      return undefined;
    return FootInvocation.parse({
      invocationId: item.invocationId,
      processId: item.processId,
      connectionId: item.connectionId,
      status: item.status,
      ...(typeof item.resultJson === "string" ? { result: JSON.parse(item.resultJson) as unknown } : {}),
      ...(item.error !== undefined ? { error: item.error } : {}),
      ...(typeof item.logsJson === "string" ? { logs: JSON.parse(item.logsJson) as unknown } : {}),
    });
  }

  async answer(tenant: string, invocationId: string, connectionId: string, answer: FootAnswer): Promise<boolean> {
    const detail =
      answer.status === "DONE"
        ? { set: "resultJson = :detail", value: JSON.stringify(answer.result ?? null) }
        : { set: "#error = :detail", value: { code: answer.error.code, message: answer.error.message } };
    const logs = answer.logs ? { set: ", logsJson = :logs", values: { ":logs": JSON.stringify(answer.logs) } } : { set: "", values: {} };
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: footInvocationKey(tenant, invocationId),
          UpdateExpression: `SET #status = :status, ${detail.set}${logs.set}`,
          ConditionExpression: "#status = :pending AND connectionId = :connection AND #expiresAt > :now",
          ExpressionAttributeNames: {
            "#status": "status",
            "#expiresAt": TABLE_TTL_ATTRIBUTE,
            ...(answer.status === "FAILED" ? { "#error": "error" } : {}),
          },
          ExpressionAttributeValues: {
            ":status": answer.status,
            ":detail": detail.value,
            ":pending": "PENDING",
            ":connection": connectionId,
            ":now": Math.floor(this.now() / 1000),
            ...logs.values,
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async remove(tenant: string, invocationId: string): Promise<void> {
    await this.documents.send(new DeleteCommand({ TableName: this.tableName, Key: footInvocationKey(tenant, invocationId) }));
  }

  private expiresAt(): number {
    return Math.floor(this.now() / 1000) + this.ttlSeconds;
  }
}
