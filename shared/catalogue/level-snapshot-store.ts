/**
 * The LevelSnapshotStore port (issue 27): immutable snapshot objects by key, beside the documents
 * but outside every level's key space (no document listing or S3-event bump ever sees them). The
 * current one of a level is named by its version item (LevelVersion.snapshot). Adapters:
 * s3-level-snapshot-store.ts (AWS and the local stack), in-memory-level-snapshot-store.ts (tests).
 */
export interface LevelSnapshotStore {
  /** Undefined when there is no such object (deleted by a newer writer: the reader lists instead). */
  get(key: string): Promise<Uint8Array | undefined>;
  put(key: string, body: Uint8Array): Promise<void>;
  /** Best effort; a missing key is no error. */
  delete(key: string): Promise<void>;
}

/** Key prefix of every snapshot object; the documents live under `tenants/`. */
export const LEVEL_SNAPSHOT_PREFIX = "catalogue-snapshots/";

/** A fresh key per write: racing writers never overwrite each other's object, the version item's condition picks one. */
export const levelSnapshotKey = (tenant: string, project: string, version: number, unique: string): string =>
  `${LEVEL_SNAPSHOT_PREFIX}${encodeURIComponent(tenant)}/${encodeURIComponent(project)}/${version}-${unique}.json.gz`;
