import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import type { TableKey } from "../aws/dynamodb-keys.js";
import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import { levelVersionKey } from "./dynamodb-catalogue-versions.js";
import { digestAttributes, documentEntrySortKey } from "./dynamodb-document-digests.js";
import { countsOf, usageDelta, type LevelCounts, type LevelUsage, type LevelUsageRead, type PathUsage } from "./level-usage.js";

const isConditionFailure = (error: unknown): boolean => (error as { name?: string }).name === "ConditionalCheckFailedException";

/** One claim per case-folded skill name of a level: `T#<tenant>#LEVEL#<project>` / `NAME#<folded>`. */
const nameKey = (tenant: string, project: string, folded: string): TableKey => ({
  pk: levelVersionKey(tenant, project).pk,
  sk: `NAME#${encodeURIComponent(folded)}`,
});

/** One entry per document of a level: `T#<tenant>#LEVEL#<project>` / `DOC#<path>`. */
const entryKey = (tenant: string, project: string, path: string): TableKey => ({
  pk: levelVersionKey(tenant, project).pk,
  sk: documentEntrySortKey(path),
});

/** Rounds of re-reading an entry another writer changed between our read and our write. */
const RECORD_ATTEMPTS = 8;

/** DynamoDB writes at most 25 items per BatchWriteItem. */
const BATCH = 25;

/**
 * LevelUsage on the service table. The counters live on the level's version item (the one a turn
 * already reads), as `usageDocuments`, `usageBytes`, `usagePatterns`, beside one entry item per
 * document: a read is one consistent BatchGetItem (counters + the written path's entry), a write a
 * conditional PutItem/DeleteItem of the entry (dynalite has no transactions) then one `ADD`
 * UpdateItem conditioned on the counters existing (an unseeded level stays unseeded, so no counter
 * ever starts from a wrong zero).
 */
export class DynamoDBLevelUsage implements LevelUsage {
  private readonly documents: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
  ) {
    this.documents = documentClientOf(client);
  }

  async read(tenant: string, project: string, path: string): Promise<LevelUsageRead | undefined> {
    const level = levelKey(tenant, project);
    const entry = entryKey(tenant, project, path);
    let keys: Record<string, unknown>[] = [{ ...level }, { ...entry }];
    const items: Record<string, unknown>[] = [];
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt >= RECORD_ATTEMPTS)
        throw new Error(`level usage of ${tenant}/${project}: DynamoDB left keys unprocessed ${RECORD_ATTEMPTS} times`);
      const out = await this.documents.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      items.push(...(out.Responses?.[this.tableName] ?? []));
      keys = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    const counters = items.find((item) => item.sk === level.sk);
    if (typeof counters?.usageDocuments !== "number") return undefined;
    const found = items.find((item) => item.sk === entry.sk);
    return {
      counts: { documents: counters.usageDocuments, bytes: num(counters.usageBytes), patterns: num(counters.usagePatterns) },
      entry: found ? { size: num(found.size), patterns: num(found.patterns) } : undefined,
    };
  }

  async seed(tenant: string, project: string, entries: ReadonlyMap<string, PathUsage>, names: readonly string[]): Promise<void> {
    const key = levelKey(tenant, project);
    const counts = countsOf(entries.values());
    // Entries and names first: once the counters exist, writers trust them.
    const items = [
      ...[...entries].map(([path, entry]) => ({
        ...entryKey(tenant, project, path),
        entity: "levelDocument",
        size: entry.size,
        patterns: entry.patterns,
      })),
      ...names.map((name) => ({ ...nameKey(tenant, project, name.toLowerCase()), entity: "levelSkillName", name })),
    ];
    for (let i = 0; i < items.length; i += BATCH) {
      let requests = items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0 && attempt < 8; attempt++) {
        const out = await this.documents.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    }
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression:
            "SET usageDocuments = :d, usageBytes = :b, usagePatterns = :p, #entity = :entity, #tenant = :tenant, #project = :project",
          ConditionExpression: "attribute_not_exists(usageDocuments)",
          ExpressionAttributeNames: { "#entity": "entity", "#tenant": "tenant", "#project": "project" },
          ExpressionAttributeValues: {
            ":d": counts.documents,
            ":b": counts.bytes,
            ":p": counts.patterns,
            ":entity": "levelVersion",
            ":tenant": tenant,
            ":project": project,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async record(tenant: string, project: string, path: string, entry: PathUsage | undefined, expected?: PathUsage): Promise<void> {
    let before = expected;
    for (let attempt = 0; attempt < RECORD_ATTEMPTS; attempt++) {
      if (attempt > 0) before = await this.entry(tenant, project, path);
      if (!(await this.replaceEntry(tenant, project, path, before, entry))) continue;
      await this.add(tenant, project, usageDelta(before, entry));
      return;
    }
    throw new Error(`level usage of ${tenant}/${project}/${path}: the entry kept changing under ${RECORD_ATTEMPTS} writes`);
  }

  private async entry(tenant: string, project: string, path: string): Promise<PathUsage | undefined> {
    const out = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: entryKey(tenant, project, path), ConsistentRead: true }),
    );
    return out.Item ? { size: num(out.Item.size), patterns: num(out.Item.patterns) } : undefined;
  }

  /** Writes (or deletes) the entry only if it still is `before`: racing writers of one path are serialized here. */
  private async replaceEntry(
    tenant: string,
    project: string,
    path: string,
    before: PathUsage | undefined,
    after: PathUsage | undefined,
  ): Promise<boolean> {
    const Key = entryKey(tenant, project, path);
    const condition = before
      ? {
          ConditionExpression: "#size = :oldSize AND #patterns = :oldPatterns",
          ExpressionAttributeNames: { "#size": "size", "#patterns": "patterns" },
          ExpressionAttributeValues: { ":oldSize": before.size, ":oldPatterns": before.patterns },
        }
      : { ConditionExpression: "attribute_not_exists(pk)" };
    try {
      if (after)
        await this.documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...Key,
              entity: "levelDocument",
              size: after.size,
              patterns: after.patterns,
              ...(after.digest ? digestAttributes(after.digest) : {}),
            },
            ...condition,
          }),
        );
      else if (before) await this.documents.send(new DeleteCommand({ TableName: this.tableName, Key, ...condition }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async add(tenant: string, project: string, delta: LevelCounts): Promise<void> {
    if (delta.documents === 0 && delta.bytes === 0 && delta.patterns === 0) return;
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: levelKey(tenant, project),
          UpdateExpression: "ADD usageDocuments :d, usageBytes :b, usagePatterns :p",
          ConditionExpression: "attribute_exists(usageDocuments)",
          ExpressionAttributeValues: { ":d": delta.documents, ":b": delta.bytes, ":p": delta.patterns },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async claimName(tenant: string, project: string, folded: string, name: string): Promise<string | undefined> {
    const key = nameKey(tenant, project, folded);
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, entity: "levelSkillName", name },
          ConditionExpression: "attribute_not_exists(pk) OR #name = :name",
          ExpressionAttributeNames: { "#name": "name" },
          ExpressionAttributeValues: { ":name": name },
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const out = await this.documents.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    const holder = out.Item?.name;
    return typeof holder === "string" && holder !== name ? holder : undefined;
  }

  async forceName(tenant: string, project: string, folded: string, name: string): Promise<void> {
    await this.documents.send(
      new PutCommand({ TableName: this.tableName, Item: { ...nameKey(tenant, project, folded), entity: "levelSkillName", name } }),
    );
  }

  async releaseName(tenant: string, project: string, folded: string, name: string): Promise<void> {
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: nameKey(tenant, project, folded),
          ConditionExpression: "#name = :name",
          ExpressionAttributeNames: { "#name": "name" },
          ExpressionAttributeValues: { ":name": name },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

const levelKey = (tenant: string, project: string): TableKey => levelVersionKey(validateTenantId(tenant), validateProjectName(project));
const num = (value: unknown): number => (typeof value === "number" ? value : 0);
