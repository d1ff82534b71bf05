import { BatchGetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import type { TableKey } from "../aws/dynamodb-keys.js";
import { jitteredBackoffMs, sleep, type BackoffPolicy, type Sleep } from "../support/retry-backoff.js";
import { CatalogueVersionsUnavailable } from "./catalogue-errors.js";
import { UNVERSIONED, type CatalogueVersions, type LevelVersion, type SnapshotMove, type SnapshotPointer } from "./catalogue-versions.js";

/** Same rule as processes/dynamodb-keys.ts: URI-encoded parts, so `#` cannot forge another key. */
const part = (value: string): string => encodeURIComponent(value);

/** The version item of one level: `T#<tenant>#LEVEL#<project>` / `VERSION`. */
export const levelVersionKey = (tenant: string, project: string): TableKey => ({
  pk: `T#${part(tenant)}#LEVEL#${part(project)}`,
  sk: "VERSION",
});

interface DynamoDBCatalogueVersionsOptions {
  clock?: () => Date;
  /** Rounds for keys DynamoDB left unprocessed (throttling) before giving up. */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  sleep?: Sleep;
}

/**
 * CatalogueVersions on the service table. A bump is one UpdateItem (`ADD version :1`, atomic, no
 * read); a read is one strongly consistent BatchGetItem for every level of a scope (at most three
 * store levels, far below the 100-key limit).
 */
export class DynamoDBCatalogueVersions implements CatalogueVersions {
  private readonly documents: DynamoDBDocumentClient;
  private readonly clock: () => Date;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly sleep: Sleep;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: DynamoDBCatalogueVersionsOptions = {},
  ) {
    this.documents = documentClientOf(client);
    this.clock = options.clock ?? (() => new Date());
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoff = options.backoff ?? { baseMs: 20, capMs: 500 };
    this.sleep = options.sleep ?? sleep;
  }

  async bump(tenant: string, project: string): Promise<LevelVersion> {
    validateTenantId(tenant);
    validateProjectName(project);
    const out = await this.documents.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: levelVersionKey(tenant, project),
        UpdateExpression: "ADD #version :one SET #changedAt = :now, #entity = :entity, #tenant = :tenant, #project = :project",
        ExpressionAttributeNames: {
          "#version": "version",
          "#changedAt": "changedAt",
          "#entity": "entity",
          "#tenant": "tenant",
          "#project": "project",
        },
        ExpressionAttributeValues: {
          ":one": 1,
          ":now": this.clock().toISOString(),
          ":entity": "levelVersion",
          ":tenant": tenant,
          ":project": project,
        },
        ReturnValues: "ALL_NEW",
      }),
    );
    return toLevelVersion(out.Attributes);
  }

  /** One conditional UpdateItem on the version item: the pointer only ever moves to a newer snapshot. */
  async pointSnapshot(tenant: string, project: string, pointer: SnapshotPointer, replacing?: string): Promise<SnapshotMove> {
    validateTenantId(tenant);
    validateProjectName(project);
    try {
      const out = await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: levelVersionKey(tenant, project),
          UpdateExpression: "SET #snapshot = :snapshot, #entity = :entity, #tenant = :tenant, #project = :project",
          ConditionExpression: "attribute_not_exists(#snapshot) OR #snapshot.#version < :version OR #snapshot.#key = :replacing",
          ExpressionAttributeNames: {
            "#snapshot": "snapshot",
            "#version": "version",
            "#key": "key",
            "#entity": "entity",
            "#tenant": "tenant",
            "#project": "project",
          },
          ExpressionAttributeValues: {
            ":snapshot": {
              version: pointer.version,
              key: pointer.key,
              ...(pointer.changedAt === undefined ? {} : { changedAt: pointer.changedAt }),
            },
            ":version": pointer.version,
            ":replacing": replacing ?? "",
            ":entity": "levelVersion",
            ":tenant": tenant,
            ":project": project,
          },
          // The pointer this write replaced, read atomically: what the writer read before may be outdated by a racing writer.
          ReturnValues: "UPDATED_OLD",
        }),
      );
      const replaced = (out.Attributes?.snapshot as { key?: unknown } | undefined)?.key;
      return { moved: true, replaced: typeof replaced === "string" ? replaced : undefined };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error as { name?: string }).name === "ConditionalCheckFailedException")
        return { moved: false };
      throw error;
    }
  }

  async read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>> {
    validateTenantId(tenant);
    const byPk = new Map<string, string>();
    for (const project of new Set(projects)) byPk.set(levelVersionKey(tenant, validateProjectName(project)).pk, project);
    const result = new Map<string, LevelVersion>(projects.map((p) => [p, UNVERSIONED]));
    if (byPk.size === 0) return result;
    let keys: Record<string, unknown>[] = [...byPk.keys()].map((pk) => ({ pk, sk: "VERSION" }));
    for (let attempt = 1; keys.length > 0; attempt++) {
      if (attempt > this.maxAttempts) throw new CatalogueVersionsUnavailable(tenant, this.maxAttempts);
      if (attempt > 1) await this.sleep(jitteredBackoffMs(attempt - 1, this.backoff));
      const out = await this.documents.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: keys,
              ConsistentRead: true,
              ProjectionExpression: "pk, #version, #changedAt, #snapshot",
              ExpressionAttributeNames: { "#version": "version", "#changedAt": "changedAt", "#snapshot": "snapshot" },
            },
          },
        }),
      );
      for (const item of out.Responses?.[this.tableName] ?? []) {
        const project = typeof item.pk === "string" ? byPk.get(item.pk) : undefined;
        if (project !== undefined) result.set(project, toLevelVersion(item));
      }
      keys = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return result;
  }
}

export function toLevelVersion(item: Record<string, unknown> | undefined): LevelVersion {
  const version = typeof item?.version === "number" ? item.version : 0;
  const level: LevelVersion = { version, changedAt: typeof item?.changedAt === "string" ? item.changedAt : null };
  const snapshot = item?.snapshot as { version?: unknown; key?: unknown; changedAt?: unknown } | undefined;
  if (snapshot && typeof snapshot.version === "number" && typeof snapshot.key === "string") {
    level.snapshot = { version: snapshot.version, key: snapshot.key };
    if (snapshot.changedAt === null || typeof snapshot.changedAt === "string") level.snapshot.changedAt = snapshot.changedAt;
  }
  return level;
}
