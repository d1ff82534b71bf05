import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Process } from "./process.js";
import { ProcessVersionConflict } from "./process-errors.js";
import { BaseProcessStore } from "./process-store-base.js";
import type { ClaimKey, NameClaim, ProcessStoreOptions } from "./process-store-base.js";
import { documentClientOf, isConditionalCheckFailed, plainItem } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { NAME_CLAIM_SORT_PREFIX, nameClaimKey, nameClaimPartition, processItemKey } from "../aws/dynamodb-keys.js";

/**
 * ProcessStore on the service table: conditional Put/Get/Delete only, every rule is in the
 * base. The process is stored as top-level attributes next to `pk`/`sk` (schema validation on
 * read drops the keys again); whole-item puts keep a write to one round trip.
 *
 * The conditional process writes ask for the stored item with a failed condition
 * (ReturnValuesOnConditionCheckFailure ALL_OLD, no extra cost): a lost race then re-applies on it
 * without a GetItem. dynalite 4.0.0 accepts the parameter but returns no item; with it (and with
 * an item that is gone) the base falls back to a read, so the path stays correct everywhere.
 */
export class DynamoDBProcessStore extends BaseProcessStore {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: ProcessStoreOptions = {},
  ) {
    super(options);
    this.documents = documentClientOf(client);
  }

  protected async readProcessItem(tenant: string, processId: string): Promise<unknown> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: processItemKey(tenant, processId), ConsistentRead: true }),
    );
    return out.Item;
  }

  protected async putProcessIfAbsent(process: Process): Promise<void> {
    await this.conflictsWithStored(
      process.processId,
      this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: processItem(process),
          ConditionExpression: "attribute_not_exists(pk)",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      ),
    );
  }

  protected async replaceProcessIfVersion(process: Process, expectedVersion: number): Promise<void> {
    await this.conflictsWithStored(
      process.processId,
      this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: processItem(process),
          ConditionExpression: "#version = :expected",
          ExpressionAttributeNames: { "#version": "version" },
          ExpressionAttributeValues: { ":expected": expectedVersion },
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      ),
    );
  }

  protected async deleteProcessIfVersion(tenant: string, processId: string, version: number): Promise<void> {
    await this.conditionally(
      this.documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: processItemKey(tenant, processId),
          ConditionExpression: "#version = :version",
          ExpressionAttributeNames: { "#version": "version" },
          ExpressionAttributeValues: { ":version": version },
        }),
      ),
    );
  }

  protected async putClaimIfAbsent(claim: NameClaim): Promise<boolean> {
    return this.conditionally(
      this.documents.send(
        new PutCommand({ TableName: this.tableName, Item: claimItem(claim), ConditionExpression: "attribute_not_exists(pk)" }),
      ),
    );
  }

  protected async readClaim(key: ClaimKey): Promise<NameClaim | undefined> {
    const { tenant, sessionId, name } = key;
    const owner = key.owner ?? "";
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: nameClaimKey(tenant, owner, sessionId, name), ConsistentRead: true }),
    );
    const item = out.Item;
    if (!item || typeof item.processId !== "string" || typeof item.claimedAt !== "number") return undefined;
    return { tenant, owner, sessionId, name, processId: item.processId, claimedAt: item.claimedAt };
  }

  protected async listClaims(tenant: string, owner: string, sessionId: string, limit: number): Promise<NameClaim[]> {
    const claims: NameClaim[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: { ":pk": nameClaimPartition(tenant, owner, sessionId), ":prefix": NAME_CLAIM_SORT_PREFIX },
          ConsistentRead: true,
          Limit: limit - claims.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        if (typeof item.processId !== "string" || typeof item.claimedAt !== "number" || typeof item.name !== "string") continue;
        claims.push({ tenant, owner, sessionId, name: item.name, processId: item.processId, claimedAt: item.claimedAt });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey && claims.length < limit);
    return claims;
  }

  protected async replaceClaimIf(claim: NameClaim, expected: NameClaim): Promise<boolean> {
    return this.conditionally(
      this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: claimItem(claim),
          ConditionExpression: "processId = :processId AND claimedAt = :claimedAt",
          ExpressionAttributeValues: { ":processId": expected.processId, ":claimedAt": expected.claimedAt },
        }),
      ),
    );
  }

  protected async deleteClaimIf(claim: NameClaim): Promise<void> {
    await this.conditionally(
      this.documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: nameClaimKey(claim.tenant, claim.owner ?? "", claim.sessionId, claim.name),
          ConditionExpression: "processId = :processId",
          ExpressionAttributeValues: { ":processId": claim.processId },
        }),
      ),
    );
  }

  /** A failed condition of a process write → ProcessVersionConflict with the item it found, when DynamoDB returned it. */
  private async conflictsWithStored(processId: string, write: Promise<unknown>): Promise<void> {
    try {
      await write;
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new ProcessVersionConflict(processId, storedItemOf(error), { cause: error });
      throw error;
    }
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
  ...nameClaimKey(claim.tenant, claim.owner ?? "", claim.sessionId, claim.name),
  entity: "processName",
  // The name itself, so a session listing needs no decoding of the sort key.
  name: claim.name,
  processId: claim.processId,
  claimedAt: claim.claimedAt,
});

/**
 * The item a ConditionalCheckFailedException carries with ALL_OLD, as plain data. The
 * DocumentClient unmarshalls outputs, not errors, so this covers what a process item holds (JSON
 * data: S, N, BOOL, NULL, L, M). No item, or any other type, is undefined: the store reads instead.
 */
export function storedItemOf(error: unknown): Record<string, unknown> | undefined {
  const item = error instanceof Error ? (error as { Item?: unknown }).Item : undefined;
  if (item === null || typeof item !== "object") return undefined;
  const plain = plainMap(item as Record<string, AttributeValue>);
  return plain === UNSUPPORTED ? undefined : plain;
}

const UNSUPPORTED = Symbol("unsupported attribute value");

function plainMap(map: Record<string, AttributeValue>): Record<string, unknown> | typeof UNSUPPORTED {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(map)) {
    const plain = plainValue(value);
    if (plain === UNSUPPORTED) return UNSUPPORTED;
    out[name] = plain;
  }
  return out;
}

function plainValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) {
    // As the DocumentClient reads numbers; one it would refuse (beyond 2^53) is left to its read.
    const n = Number(value.N);
    return Math.abs(n) <= Number.MAX_SAFE_INTEGER ? n : UNSUPPORTED;
  }
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) {
    const out: unknown[] = [];
    for (const entry of value.L) {
      const plain = plainValue(entry);
      if (plain === UNSUPPORTED) return UNSUPPORTED;
      out.push(plain);
    }
    return out;
  }
  if (value.M !== undefined) return plainMap(value.M);
  return UNSUPPORTED;
}
