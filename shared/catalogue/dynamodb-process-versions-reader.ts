import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { validateProjectName, validateTenantId } from "../documents/document-path.js";
import { documentClientOf } from "../aws/dynamodb-client.js";
import type { DynamoDBClientLike } from "../aws/dynamodb-client.js";
import { processItemKey, processSubscribersMarkerKey, requestItemKey, subscribersMarkerLive } from "../aws/dynamodb-keys.js";
import { requestRecordOfItem } from "../processes/dynamodb-request-store.js";
import { ProcessUnavailable } from "../processes/process-errors.js";
import { parseStoredProcess } from "../processes/stored-process.js";
import { jitteredBackoffMs, sleep, type BackoffPolicy, type Sleep } from "../support/retry-backoff.js";
import { UNVERSIONED, type LevelVersion } from "./catalogue-versions.js";
import { levelVersionKey, toLevelVersion } from "./dynamodb-catalogue-versions.js";
import type { ProcessReadOptions, ProcessVersionsReader, ProcessWithVersions } from "./process-versions-reader.js";

interface DynamoDBProcessVersionsReaderOptions {
  /** Rounds for keys DynamoDB left unprocessed (throttling) before giving up. */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  sleep?: Sleep;
  /** Epoch ms, for the subscription marker's expiry. */
  now?: () => number;
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
  private readonly now: () => number;

  constructor(
    client: DynamoDBClientLike,
    private readonly tableName: string,
    options: DynamoDBProcessVersionsReaderOptions = {},
  ) {
    this.documents = documentClientOf(client);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoff = options.backoff ?? { baseMs: 20, capMs: 500 };
    this.sleep = options.sleep ?? sleep;
    this.now = options.now ?? Date.now;
  }

  /**
   * With `requestId` the same request also carries the request's record and the process's
   * subscription marker (a lane turn then needs no read of its own for either). Those two are
   * optional like the versions: one that stays unprocessed is left out, and its reader reads it.
   */
  async read(
    tenant: string,
    processId: string,
    projects: readonly string[],
    options: ProcessReadOptions = {},
  ): Promise<ProcessWithVersions> {
    validateTenantId(tenant);
    const processKey = processItemKey(tenant, processId);
    const projectByPk = new Map<string, string>();
    for (const project of new Set(projects)) projectByPk.set(levelVersionKey(tenant, validateProjectName(project)).pk, project);
    const versions = new Map<string, LevelVersion>([...projectByPk.values()].map((p) => [p, UNVERSIONED]));
    const requestKey = options.requestId === undefined ? undefined : requestItemKey(tenant, processId, options.requestId);
    const markerKey = requestKey === undefined ? undefined : processSubscribersMarkerKey(tenant, processId);
    const same = (item: Key, key: { pk: string; sk: string } | undefined): boolean =>
      key !== undefined && item.pk === key.pk && item.sk === key.sk;

    let processItem: Key | undefined;
    let requestItem: Key | undefined;
    let markerItem: Key | undefined;
    let keys: Key[] = [
      { ...processKey },
      ...[...projectByPk.keys()].map((pk) => ({ pk, sk: "VERSION" })),
      ...(requestKey && markerKey ? [{ ...requestKey }, { ...markerKey }] : []),
    ];
    for (let attempt = 1; keys.length > 0 && attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1) await this.sleep(jitteredBackoffMs(attempt - 1, this.backoff));
      const out = await this.documents.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of out.Responses?.[this.tableName] ?? []) {
        if (same(item, processKey)) processItem = item;
        else if (same(item, requestKey)) requestItem = item;
        else if (same(item, markerKey)) markerItem = item;
        else {
          const project = typeof item.pk === "string" && item.sk === "VERSION" ? projectByPk.get(item.pk) : undefined;
          if (project !== undefined) versions.set(project, toLevelVersion(item));
        }
      }
      keys = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }

    let requestRead = requestKey !== undefined;
    let markerRead = markerKey !== undefined;
    for (const key of keys) {
      if (same(key, processKey)) throw new ProcessUnavailable(processId, this.maxAttempts);
      if (same(key, requestKey)) requestRead = false;
      else if (same(key, markerKey)) markerRead = false;
      const project = typeof key.pk === "string" ? projectByPk.get(key.pk) : undefined;
      if (project !== undefined) versions.delete(project);
    }
    return {
      process: parseStoredProcess(processItem, tenant, processId),
      versions,
      ...(requestRead ? { request: { record: requestItem === undefined ? undefined : requestRecordOfItem(requestItem) } } : {}),
      ...(markerRead ? { mayHaveSubscribers: subscribersMarkerLive(markerItem, this.now()) } : {}),
    };
  }
}
