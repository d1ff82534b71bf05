import type { DocumentRef, DocumentStore, DocumentVersion, GetVersionOptions, PutOptions, StoredDocument } from "./document-store.js";
import { assertReadableSize } from "./document-store-errors.js";
import { md5Etag, toBytes } from "./document-body.js";
import { documentKey, documentKeyPrefix, projectKeyPrefix } from "./document-path.js";

/** DocumentStore for unit tests and the local stack without S3; same keys and ETags as the S3 adapter. */
export class InMemoryDocumentStore implements DocumentStore {
  private readonly documents = new Map<
    string,
    { body: Uint8Array; etag: string; contentType?: string | undefined; writtenBy?: string | undefined; mode?: number | undefined }
  >();
  /** Every write of a key, oldest first, as a versioned bucket keeps them (the local version store). */
  private readonly history = new Map<
    string,
    { version: DocumentVersion; body: Uint8Array; contentType?: string | undefined; mode?: number | undefined }[]
  >();
  private nextVersion = 0;
  readonly keepsVersions = true;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async versions(tenant: string, project: string, path: string): Promise<DocumentVersion[] | undefined> {
    return (this.history.get(documentKey(tenant, project, path)) ?? []).map((h) => ({ ...h.version })).reverse();
  }

  async getVersion(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options: GetVersionOptions = {},
  ): Promise<StoredDocument | undefined> {
    const found = this.history.get(documentKey(tenant, project, path))?.find((h) => h.version.versionId === versionId);
    if (found) assertReadableSize(path, found.body.byteLength, options.maxBytes);
    return (
      found && {
        path,
        etag: found.version.etag,
        size: found.body.byteLength,
        body: found.body.slice(),
        contentType: found.contentType,
        writtenBy: found.version.writtenBy,
        ...(found.mode !== undefined ? { mode: found.mode } : {}),
      }
    );
  }

  async get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    const stored = this.documents.get(documentKey(tenant, project, path));
    if (!stored) return undefined;
    // A copy, so a caller mutating the bytes cannot change what the store holds.
    return {
      path,
      etag: stored.etag,
      size: stored.body.byteLength,
      body: stored.body.slice(),
      contentType: stored.contentType,
      writtenBy: stored.writtenBy,
      ...(stored.mode !== undefined ? { mode: stored.mode } : {}),
    };
  }

  async put(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array | string,
    contentType?: string,
    options: PutOptions = {},
  ): Promise<DocumentRef> {
    const key = documentKey(tenant, project, path);
    const bytes = toBytes(body).slice();
    const etag = md5Etag(bytes);
    const { writtenBy, mode } = options;
    this.documents.set(key, { body: bytes, etag, contentType, writtenBy, mode });
    const version: DocumentVersion = {
      versionId: `v${String(++this.nextVersion).padStart(8, "0")}`,
      etag,
      lastModified: this.clock().toISOString(),
      size: bytes.byteLength,
      ...(writtenBy ? { writtenBy } : {}),
    };
    this.history.set(key, [...(this.history.get(key) ?? []), { version, body: bytes, contentType, mode }]);
    return { path, etag, size: bytes.byteLength };
  }

  async delete(tenant: string, project: string, path: string): Promise<boolean> {
    return this.documents.delete(documentKey(tenant, project, path));
  }

  async list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    const keyPrefix = documentKeyPrefix(tenant, project, prefix);
    const projectPrefix = projectKeyPrefix(tenant, project);
    const refs: DocumentRef[] = [];
    for (const [key, stored] of this.documents) {
      if (key.startsWith(keyPrefix)) refs.push({ path: key.slice(projectPrefix.length), etag: stored.etag, size: stored.body.byteLength });
    }
    // Code-unit order equals S3's UTF-8 byte order here because paths are ASCII (document-path.ts).
    return refs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
