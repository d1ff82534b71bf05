import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";

/**
 * Counts the DynamoDB and SQS requests every client of this Node process sends (the local stack
 * runs its functions in-process), by wrapping the clients' `send`. A long-poll ReceiveMessage
 * that comes back empty is counted apart: the poller sends those whether or not anyone works,
 * so they are no turn's cost.
 */
export interface SdkRequestTally {
  /** `<Service>.<Operation>` → requests since the last reset. */
  snapshot(): Record<string, number>;
  total(service: "DynamoDB" | "SQS"): number;
  reset(): void;
  restore(): void;
}

const DOCUMENT_OPERATIONS: Record<string, string> = {
  Get: "GetItem",
  Put: "PutItem",
  Update: "UpdateItem",
  Delete: "DeleteItem",
  Query: "Query",
  BatchGet: "BatchGetItem",
  BatchWrite: "BatchWriteItem",
  TransactWrite: "TransactWriteItems",
};
const operationOf = (name: string): string => {
  const bare = name.replace(/Command$/, "");
  return DOCUMENT_OPERATIONS[bare] ?? bare;
};

type Send = (...args: unknown[]) => Promise<unknown>;

export function tallySdkRequests(): SdkRequestTally {
  const counts = new Map<string, number>();
  const add = (key: string): void => void counts.set(key, (counts.get(key) ?? 0) + 1);
  const restores: (() => void)[] = [];
  const wrap = (service: string, prototype: { send: Send }): void => {
    const original = prototype.send;
    prototype.send = async function (this: unknown, ...args: unknown[]) {
      const operation = operationOf((args[0] as { constructor: { name: string } }).constructor.name);
      let result: unknown;
      try {
        result = await original.apply(this, args);
        return result;
      } finally {
        // A failed request is a round trip too.
        if (operation === "ReceiveMessage" && result !== undefined && ((result as { Messages?: unknown[] }).Messages ?? []).length === 0)
          add(`${service}.ReceiveMessage(empty)`);
        else add(`${service}.${operation}`);
      }
    };
    restores.push(() => {
      prototype.send = original;
    });
  };
  wrap("DynamoDB", DynamoDBClient.prototype as unknown as { send: Send });
  wrap("DynamoDB", DynamoDBDocumentClient.prototype as unknown as { send: Send });
  wrap("SQS", SQSClient.prototype as unknown as { send: Send });
  return {
    snapshot: () => Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1))),
    total: (service) =>
      [...counts].filter(([key]) => key.startsWith(`${service}.`) && !key.endsWith("(empty)")).reduce((sum, [, n]) => sum + n, 0),
    reset: () => counts.clear(),
    restore: () => restores.forEach((restore) => restore()),
  };
}
