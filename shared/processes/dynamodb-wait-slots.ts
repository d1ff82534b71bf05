import { randomUUID } from "node:crypto";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { TABLE_TTL_ATTRIBUTE } from "../aws/table-schema.js";
import { documentClientOf, isConditionalCheckFailed } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { DEFAULT_MAX_WAITS_PER_IDENTITY, type WaitSlots } from "./wait-slots.js";

const part = (value: string): string => encodeURIComponent(value);

/**
 * Wait slots shared by every instance: `limit` items per identity, each taken with a conditional
 * put (free, or its lease ran out) and given back with a conditional delete. Usually one write
 * each way; a full set costs `limit` failed puts before the 429.
 */
export class DynamoDBWaitSlots implements WaitSlots {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    readonly limit: number = DEFAULT_MAX_WAITS_PER_IDENTITY,
    private readonly now: () => number = Date.now,
    /** Keeps different counts apart in one table: `W` waits, `S` spawns, `E` evals runs. */
    private readonly partition: "W" | "S" | "E" = "W",
  ) {
    this.documents = documentClientOf(client);
  }

  async acquire(tenant: string, login: string, leaseMs: number): Promise<(() => Promise<void>) | undefined> {
    const pk = `T#${part(tenant)}#${this.partition}#${part(login)}`;
    const holder = randomUUID();
    const start = Math.floor(Math.random() * this.limit);
    for (let i = 0; i < this.limit; i++) {
      const sk = `SLOT#${(start + i) % this.limit}`;
      const now = this.now();
      try {
        await this.documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              pk,
              sk,
              entity: "waitSlot",
              holder,
              leaseUntil: now + leaseMs,
              [TABLE_TTL_ATTRIBUTE]: Math.ceil((now + leaseMs) / 1000) + 60,
            },
            ConditionExpression: "attribute_not_exists(pk) OR leaseUntil < :now",
            ExpressionAttributeValues: { ":now": now },
          }),
        );
      } catch (error) {
        if (isConditionalCheckFailed(error)) continue;
        throw error;
      }
      return async () => {
        try {
          await this.documents.send(
            new DeleteCommand({
              TableName: this.tableName,
              Key: { pk, sk },
              ConditionExpression: "holder = :holder",
              ExpressionAttributeValues: { ":holder": holder },
            }),
          );
        } catch (error) {
          // Taken over after our lease ran out: nothing of ours to give back.
          if (!isConditionalCheckFailed(error)) throw error;
        }
      };
    }
    return undefined;
  }
}
