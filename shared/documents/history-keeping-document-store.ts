import { createHash, randomBytes } from "node:crypto";
import { mapWithConcurrency } from "./cascade-layers.js";
import { MAX_LISTED_VERSIONS, MAX_WRITER_LOOKUPS } from "./document-store.js";
import type { DocumentRef, DocumentStore, DocumentVersion, GetVersionOptions, PutOptions, StoredDocument } from "./document-store.js";
import { assertReadableSize } from "./document-store-errors.js";

/**
 * Version history for a store whose bucket keeps none (the local stack: fauxqs has no S3
 * versioning, see decisions.md "Issue 17: version history on the local stack"). Every put also
 * writes a copy into a second store under a version id that sorts by time, so that store's own
 * listing is the history; a delete leaves the history alone, as a versioned bucket does. Only the
 * DocumentStore port is used, so any store can keep the history (a second bucket, or memory).
 */

/** 13-digit epoch milliseconds, a 4-digit counter, 6 hex digits: chronological, unique across writers. */
const VERSION_ID = /^(\d{13})-(\d{4})-([0-9a-f]{6})$/;

/** Reads of the history copies that fill `writtenBy`, at most this many at a time. */
const WRITER_READ_CONCURRENCY = 8;

/**
 * The history folder of one path: a hash, so that the history of `a` never lists the one of
 * `a/b`, and a path near the 1024-character limit still has room for a version id.
 */
const historyFolder = (path: string): string => createHash("sha256").update(path).digest("hex");

export class HistoryKeepingDocumentStore implements DocumentStore {
  private lastMs = 0;
  private counter = 0;
  readonly keepsVersions = true;

  constructor(
    private readonly inner: DocumentStore,
    private readonly history: DocumentStore,
    private readonly clock: () => number = Date.now,
  ) {}

  get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    return this.inner.get(tenant, project, path);
  }

  list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    return this.inner.list(tenant, project, prefix);
  }

  /** The history is kept: a restore after a delete works, as on a versioned bucket. */
  delete(tenant: string, project: string, path: string): Promise<boolean> {
    return this.inner.delete(tenant, project, path);
  }

  /** The document first: a failed history copy leaves a saved document without its version, never a version that was not saved. */
  async put(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array | string,
    contentType?: string,
    options?: PutOptions,
  ): Promise<DocumentRef> {
    const saved = await this.inner.put(tenant, project, path, body, contentType, options);
    await this.history.put(tenant, project, `${historyFolder(path)}/${this.nextVersionId()}`, body, contentType, options);
    return saved;
  }

  async versions(tenant: string, project: string, path: string): Promise<DocumentVersion[]> {
    const folder = `${historyFolder(path)}/`;
    const newestFirst = (await this.history.list(tenant, project, folder))
      .map((ref) => ({ ref, versionId: ref.path.slice(folder.length) }))
      .filter(({ versionId }) => VERSION_ID.test(versionId))
      .reverse()
      .slice(0, MAX_LISTED_VERSIONS);
    return mapWithConcurrency(newestFirst, WRITER_READ_CONCURRENCY, async ({ ref, versionId }, index) => {
      // The port lists no metadata: the writer is read from the copy itself.
      const copy = index < MAX_WRITER_LOOKUPS ? await this.history.get(tenant, project, ref.path) : undefined;
      const writtenBy = copy?.writtenBy;
      return { versionId, etag: ref.etag, lastModified: lastModifiedOf(versionId), size: ref.size, ...(writtenBy ? { writtenBy } : {}) };
    });
  }

  async getVersion(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options: GetVersionOptions = {},
  ): Promise<StoredDocument | undefined> {
    // Anything else cannot be one of ours, and must not become a path in the history store.
    if (!VERSION_ID.test(versionId)) return undefined;
    // Copies are made on writes through this store (capped by the API): checked after the read.
    const copy = await this.history.get(tenant, project, `${historyFolder(path)}/${versionId}`);
    if (copy) assertReadableSize(path, copy.size, options.maxBytes);
    return copy && { ...copy, path };
  }

  /** Never goes backwards within this process, even when the clock does. */
  private nextVersionId(): string {
    let now = Math.max(this.clock(), this.lastMs);
    this.counter = now === this.lastMs ? this.counter + 1 : 0;
    // A 10 000th write in one millisecond moves to the next one rather than wrap the counter.
    if (this.counter > 9999) [now, this.counter] = [now + 1, 0];
    this.lastMs = now;
    return `${String(now).padStart(13, "0")}-${String(this.counter).padStart(4, "0")}-${randomBytes(3).toString("hex")}`;
  }
}

const lastModifiedOf = (versionId: string): string => new Date(Number(versionId.slice(0, 13))).toISOString();
