import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Process } from "./process.js";
import { BaseProcessStore } from "./process-store-base.js";
import type { NameClaim, ProcessStoreOptions } from "./process-store-base.js";
import { documentClientOf, isConditionalCheckFailed, plainItem } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { nameClaimKey, processItemKey } from "../aws/dynamodb-keys.js";

/**
 * ProcessStore on the service table: conditional Put/Get/Delete only, every rule is in the
 * base. The process is stored as top-level attributes next to `pk`/`sk` (schema validation on
 * read drops the keys again); whole-item puts keep a write to one round trip.
 */
export class DynamoDBProcessStore extends BaseProcessStore {
  private readonly documents: DynamoDBDocumentClient;

  constructor(client: DynamoDBClientLike, private readonly tableName: string, options: ProcessStoreOptions = {}) {
    super(options);
    this.documents = documentClientOf(client);
  }

  protected async readProcessItem(tenant: string, processId: string): Promise<unknown> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: processItemKey(tenant, processId), ConsistentRead: true }),
    );
    return out.Item;
  }

  protected async putProcessIfAbsent(process: Process): Promise<boolean> {
    return this.conditionally(
      this.documents.send(new PutCommand({
        TableName: this.tableName,
        Item: processItem(process),
        ConditionExpression: "attribute_not_exists(pk)",
      })),
    );
  }

  protected async replaceProcessIfVersion(process: Process, expectedVersion: number): Promise<boolean> {
    return this.conditionally(
      this.documents.send(new PutCommand({
        TableName: this.tableName,
        Item: processItem(process),
        ConditionExpression: "#version = :expected",
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":expected": expectedVersion },
      })),
    );
  }

  protected async deleteProcessIfVersion(tenant: string, processId: string, version: number): Promise<void> {
    await this.conditionally(
      this.documents.send(new DeleteCommand({
        TableName: this.tableName,
        Key: processItemKey(tenant, processId),
        ConditionExpression: "#version = :version",
        ExpressionAttributeNames: { "#version": "version" },
        ExpressionAttributeValues: { ":version": version },
      })),
    );
  }

  protected async putClaimIfAbsent(claim: NameClaim): Promise<boolean> {
    return this.conditionally(
      this.documents.send(
        new PutCommand({ TableName: this.tableName, Item: claimItem(claim), ConditionExpression: "attribute_not_exists(pk)" }),
      ),
    );
  }

  protected async readClaim(tenant: string, sessionId: string, name: string): Promise<NameClaim | undefined> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: nameClaimKey(tenant, sessionId, name), ConsistentRead: true }),
    );
    const item = out.Item;
    if (!item || typeof item.processId !== "string" || typeof item.claimedAt !== "number") return undefined;
    return { tenant, sessionId, name, processId: item.processId, claimedAt: item.claimedAt };
  }

  protected async replaceClaimIf(claim: NameClaim, expected: NameClaim): Promise<boolean> {
    return this.conditionally(
      this.documents.send(new PutCommand({
        TableName: this.tableName,
        Item: claimItem(claim),
        ConditionExpression: "processId = :processId AND claimedAt = :claimedAt",
        ExpressionAttributeValues: { ":processId": expected.processId, ":claimedAt": expected.claimedAt },
      })),
    );
  }

  protected async deleteClaimIf(claim: NameClaim): Promise<void> {
    await this.conditionally(
      this.documents.send(new DeleteCommand({
        TableName: this.tableName,
        Key: nameClaimKey(claim.tenant, claim.sessionId, claim.name),
        ConditionExpression: "processId = :processId",
        ExpressionAttributeValues: { ":processId": claim.processId },
      })),
    );
  }

  /** true when the write happened, false when its condition did not hold; anything else throws. */
  private async conditionally(write: Promise<unknown>): Promise<boolean> {
    try {
      await write;
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}

const processItem = (process: Process): Record<string, unknown> => ({
  ...plainItem(process),
  ...processItemKey(process.tenant, process.processId),
  entity: "process",
});

const claimItem = (claim: NameClaim): Record<string, unknown> => ({
  ...nameClaimKey(claim.tenant, claim.sessionId, claim.name),
  entity: "processName",
  processId: claim.processId,
  claimedAt: claim.claimedAt,
});
