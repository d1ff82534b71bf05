/**
 * The DocumentStore port: documents of one tenant's project (`project` is a project id,
 * `_tenant` or `_user_<login>`), addressed by a path relative to that project.
 * Adapters: in-memory-document-store.ts (tests), s3-document-store.ts (AWS); the decorator
 * history-keeping-document-store.ts adds versions to a store that keeps none (the local stack).
 * Paths reaching an adapter are already validated (document-path.ts); adapters assert it again.
 */
export interface DocumentRef {
  path: string;
  etag: string;
  size: number;
}

export interface StoredDocument extends DocumentRef {
  body: Uint8Array;
  contentType?: string | undefined;
  /** The writer's login, where the store kept it (PutOptions.writtenBy). */
  writtenBy?: string | undefined;
  /** Permission bits given on the write (PutOptions.mode); absent for a write that gave none. */
  mode?: number | undefined;
}

/** One stored version of a document (a versioned bucket; API.md "Author's loop"). */
export interface DocumentVersion {
  versionId: string;
  etag: string;
  lastModified: string;
  size: number;
  /** Who wrote this version, where known (writes from outside the API carry no writer). */
  writtenBy?: string;
}

export interface PutOptions {
  /** The caller's login, kept with the version ("who wrote it"). */
  writtenBy?: string | undefined;
  /** The file's permission bits (document-mode.ts), kept with the object so a pull restores them. */
  mode?: number | undefined;
}

/** At most this many versions of one document are listed (a year of hourly saves is far below it). */
export const MAX_LISTED_VERSIONS = 1000;
/**
 * Versions, newest first, whose writer is looked up (one read each: a version listing carries no
 * metadata). Older ones are listed without `writtenBy`, so a long history costs a bounded number
 * of reads rather than one per version.
 */
export const MAX_WRITER_LOOKUPS = 100;

export interface GetVersionOptions {
  maxBytes?: number | undefined;
}

export interface DocumentStore {
  /**
   * Whether `versions` and `getVersion` answer from a real history. Known without a request, so a
   * caller can tell "no such version" (404) from "no versions kept" (501) without listing any.
   */
  readonly keepsVersions: boolean;
  /**
   * A document's versions, newest first (delete markers left out); undefined when the store keeps
   * no versions. Optional: only versioned stores implement it.
   */
  versions?(tenant: string, project: string, path: string): Promise<DocumentVersion[] | undefined>;
  /**
   * One version's body; undefined for a version this document does not have. With `maxBytes`, a
   * larger version is DocumentTooLargeToRead, refused before its body is read where the store can.
   */
  getVersion?(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options?: GetVersionOptions,
  ): Promise<StoredDocument | undefined>;
  get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined>;
  put(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array | string,
    contentType?: string,
    options?: PutOptions,
  ): Promise<DocumentRef>;
  /** Returns false when there was nothing to delete. */
  delete(tenant: string, project: string, path: string): Promise<boolean>;
  /** Every document whose path starts with `prefix`, sorted by path. */
  list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]>;
}

/** Read-only view of one layer (a store bound to tenant + project, or the bundled resources). */
export interface DocumentLayer {
  read(path: string): Promise<StoredDocument | undefined>;
  list(prefix: string): Promise<DocumentRef[]>;
}

export const textOf = (doc: StoredDocument): string => new TextDecoder("utf-8", { fatal: false }).decode(doc.body);
