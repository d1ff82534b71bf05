import type { Process } from "../processes/process.js";
import type { RequestRecord } from "../processes/request-store.js";
import type { LevelVersion } from "./catalogue-versions.js";

export interface ProcessWithVersions {
  /** As ProcessStore.get answers it: strongly consistent, undefined for an unknown id or another tenant's. */
  process: Process | undefined;
  /**
   * As CatalogueVersions.read answers it (a level never bumped is UNVERSIONED), except that a
   * level whose version could not be read is left out: the catalogue then reads it itself.
   */
  versions: Map<string, LevelVersion>;
  /**
   * With `requestId`, where the adapter read it in the same round trip: the request as
   * RequestStore.get answers it (`record` undefined: no such request). Absent: not read.
   */
  request?: { record: RequestRecord | undefined };
  /**
   * false when nobody can be subscribed to the process's events (no live subscription marker,
   * dynamodb-connection-store.ts); undefined when the adapter does not know.
   */
  mayHaveSubscribers?: boolean;
}

export interface ProcessReadOptions {
  /** Also read this request's record, where the store can in the same round trip. */
  requestId?: string;
}

/**
 * The ProcessVersionsReader port: what a turn starts from — its process and the catalogue versions
 * of its cascade levels — in one round trip where the store allows it (on AWS both are items of
 * the service table, so one BatchGetItem). The process is never left out: it cannot be read →
 * the call fails, as ProcessStore.get would.
 * Adapters: dynamodb-process-versions-reader.ts (AWS), separate-process-versions-reader.ts (the
 * two ports side by side: in-memory stores, tests, local).
 */
export interface ProcessVersionsReader {
  read(tenant: string, processId: string, projects: readonly string[], options?: ProcessReadOptions): Promise<ProcessWithVersions>;
}
