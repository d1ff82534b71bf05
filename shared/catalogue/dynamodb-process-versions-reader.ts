import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { processItemKey } from "../aws/dynamodb-keys.js";
import { ProcessUnavailable } from "../processes/process-errors.js";
import { parseStoredProcess } from "../processes/stored-process.js";
import { jitteredBackoffMs, sleep, type BackoffPolicy, type Sleep } from "../support/retry-backoff.js";
import { UNVERSIONED, type LevelVersion } from "./catalogue-versions.js";
import { levelVersionKey, toLevelVersion } from "./dynamodb-catalogue-versions.js";
import type { ProcessVersionsReader, ProcessWithVersions } from "./process-versions-reader.js";

interface DynamoDBProcessVersionsReaderOptions {
  /** Rounds for keys DynamoDB left unprocessed (throttling) before giving up. */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  sleep?: Sleep;
}

type Key = Record<string, unknown>;

/**
 * ProcessVersionsReader on the service table: the process item and the level version items are
 * read with ONE strongly consistent BatchGetItem (at most four keys, far below the 100-key limit).
 * Whole items, no projection: one request has one projection per table, and the process needs
 * every attribute. Keys DynamoDB leaves unprocessed are asked again with backoff; a version that
 * stays unprocessed is left out (the catalogue reads it itself), the process never is
 * (ProcessUnavailable, retryable).
 */
export class DynamoDBProcessVersionsReader implements ProcessVersionsReader {
  private readonly documents: DynamoDBDocumentClient;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly sleep: Sleep;

  constructor(client: DynamoDBClientLike, private readonly tableName: string, options: DynamoDBProcessVersionsReaderOptions = {}) {
    this.documents = documentClientOf(client);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoff = options.backoff ?? { baseMs: 20, capMs: 500 };
    this.sleep = options.sleep ?? sleep;
  }

  async read(tenant: string, processId: string, projects: readonly string[]): Promise<ProcessWithVersions> {
    validateTenantId(tenant);
    const processKey = processItemKey(tenant, processId);
    const projectByPk = new Map<string, string>();
    for (const project of new Set(projects)) projectByPk.set(levelVersionKey(tenant, validateProjectName(project)).pk, project);
    const versions = new Map<string, LevelVersion>([...projectByPk.values()].map((p) => [p, UNVERSIONED]));

    let processItem: Key | undefined;
    let keys: Key[] = [{ ...processKey }, ...[...projectByPk.keys()].map((pk) => ({ pk, sk: "VERSION" }))];
    for (let attempt = 1; keys.length > 0 && attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1) await this.sleep(jitteredBackoffMs(attempt - 1, this.backoff));
      const out = await this.documents.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }));
      for (const item of out.Responses?.[this.tableName] ?? []) {
        if (item.pk === processKey.pk && item.sk === processKey.sk) {
          processItem = item;
          continue;
        }
        const project = typeof item.pk === "string" && item.sk === "VERSION" ? projectByPk.get(item.pk) : undefined;
        if (project !== undefined) versions.set(project, toLevelVersion(item));
      }
      keys = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }

    for (const key of keys) {
      if (key.pk === processKey.pk && key.sk === processKey.sk) throw new ProcessUnavailable(processId, this.maxAttempts);
      const project = typeof key.pk === "string" ? projectByPk.get(key.pk) : undefined;
      if (project !== undefined) versions.delete(project);
    }
    return { process: parseStoredProcess(processItem, tenant, processId), versions };
  }
}
