import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
  type ListObjectVersionsCommandOutput,
  type S3Client,
} from "@aws-sdk/client-s3";
import { mapWithConcurrency } from "./cascade-layers.js";
import { MAX_LISTED_VERSIONS, MAX_WRITER_LOOKUPS } from "./document-store.js";
import type { DocumentRef, DocumentStore, DocumentVersion, GetVersionOptions, PutOptions, StoredDocument } from "./document-store.js";
import { bareEtag, toBytes } from "./document-body.js";
import { DocumentStoreAccessDenied, assertReadableSize } from "./document-store-errors.js";
import { documentKey, documentKeyPrefix, isValidDocumentPath, projectKeyPrefix } from "./document-path.js";
import { formatFileMode, storedFileMode } from "./document-mode.js";

interface S3DocumentStoreOptions {
  client: S3Client;
  bucket: string;
  /** MaxKeys per ListObjectsV2 page; only tests lower it (to exercise pagination). */
  listPageSize?: number;
  /**
   * false: the bucket keeps no versions that can be trusted (the local stack's emulator ignores
   * VersionId and lists none), so `versions` answers undefined and the API says so (501), unless
   * the wiring wraps the store in the history-keeping decorator.
   */
  versioned?: boolean;
}

const isNotFound = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
};

/**
 * S3 answers a versionId that is not one of this key's with NoSuchVersion, 400 for a malformed one,
 * and 405 MethodNotAllowed for the id of a delete marker (a version with no body): none is a version.
 */
const isNoSuchVersion = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  const status = e?.$metadata?.httpStatusCode;
  return (
    isNotFound(error) ||
    e?.name === "NoSuchVersion" ||
    e?.name === "InvalidArgument" ||
    e?.name === "MethodNotAllowed" ||
    status === 400 ||
    status === 405
  );
};

/** HeadObject's 403 carries no body, so the SDK names it `Forbidden` rather than `AccessDenied`. */
const isAccessDenied = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === "AccessDenied" || e?.name === "Forbidden" || e?.$metadata?.httpStatusCode === 403;
};

/**
 * The version calls need permissions of their own (s3:ListBucketVersions, s3:GetObjectVersion) that
 * a role granted only s3:GetObject lacks: a 403 says which one, anything else passes unchanged.
 */
const deniedAs = (error: unknown, action: string, resource: string): unknown =>
  isAccessDenied(error) ? new DocumentStoreAccessDenied(action, resource, { cause: error }) : error;

export { MAX_LISTED_VERSIONS } from "./document-store.js";

/** User metadata `x-amz-meta-written-by`: the writer's login (PutOptions.writtenBy). */
const WRITTEN_BY = "written-by";
/** S3 caps a key's user metadata at 2 KB; a login is far shorter, this keeps any value inside it. */
const MAX_WRITTEN_BY_CHARS = 256;
/** HeadObject calls that fill `writtenBy` of listed versions, at most this many at a time. */
const VERSION_HEAD_CONCURRENCY = 8;

/** User metadata `x-amz-meta-mode`: the file's permission bits, three octal digits (PutOptions.mode). */
const MODE = "mode";

/** Metadata travels as an HTTP header, so only ASCII survives: anything else is percent-encoded. */
function putMetadata({ writtenBy, mode }: PutOptions): Record<string, string> | undefined {
  const metadata: Record<string, string> = {
    ...(writtenBy ? { [WRITTEN_BY]: encodeURIComponent(writtenBy.slice(0, MAX_WRITTEN_BY_CHARS)) } : {}),
    ...(mode !== undefined ? { [MODE]: formatFileMode(mode) } : {}),
  };
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

const modeOf = (metadata: Record<string, string> | undefined): { mode?: number } => {
  const mode = storedFileMode(metadata?.[MODE]);
  return mode === undefined ? {} : { mode };
};

function writtenByOf(metadata: Record<string, string> | undefined): string | undefined {
  const raw = metadata?.[WRITTEN_BY];
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    // Written by another tool without the encoding: shown as it is.
    return raw;
  }
}

/** DocumentStore on one S3 bucket; keys are `tenants/{tenant}/projects/{project}/{path}` (DESIGN.md "Data"). */
export class S3DocumentStore implements DocumentStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly listPageSize: number | undefined;
  readonly keepsVersions: boolean;

  constructor(options: S3DocumentStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.listPageSize = options.listPageSize;
    this.keepsVersions = options.versioned ?? true;
  }

  async get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    const Key = documentKey(tenant, project, path);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return {
        path,
        etag: bareEtag(out.ETag),
        size: body.byteLength,
        body,
        contentType: out.ContentType,
        writtenBy: writtenByOf(out.Metadata),
        ...modeOf(out.Metadata),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async put(
    tenant: string,
    project: string,
    path: string,
    body: Uint8Array | string,
    contentType?: string,
    options: PutOptions = {},
  ): Promise<DocumentRef> {
    const Key = documentKey(tenant, project, path);
    const bytes = toBytes(body);
    const out = await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key,
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: contentType,
        Metadata: putMetadata(options),
      }),
    );
    return { path, etag: bareEtag(out.ETag), size: bytes.byteLength };
  }

  async delete(tenant: string, project: string, path: string): Promise<boolean> {
    const Key = documentKey(tenant, project, path);
    // DeleteObject answers 204 whether or not the key existed; the API needs to tell the two apart.
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    return true;
  }

  async list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    const Prefix = documentKeyPrefix(tenant, project, prefix);
    const projectPrefix = projectKeyPrefix(tenant, project);
    const refs: DocumentRef[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken, MaxKeys: this.listPageSize }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        const path = object.Key.slice(projectPrefix.length);
        // Keys written around this service (console, CLI) may not be addressable through it: leave them out.
        if (!isValidDocumentPath(path)) continue;
        refs.push({ path, etag: bareEtag(object.ETag), size: object.Size ?? 0 });
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    // Real S3 lists in UTF-8 byte order already; emulators (fauxqs sorts with localeCompare) may not.
    return refs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * ListObjectVersions under the key itself (a prefix; other keys that merely start with it are
   * dropped, and the paging stops at the first of them), newest first, each with its writer from a HeadObject of that version (ListObjectVersions
   * carries no metadata). Needs a versioned bucket (the stack's is); the local stack's emulator
   * does not implement the call, so the wiring there keeps versions with the history-keeping
   * decorator instead (see decisions.md).
   */
  async versions(tenant: string, project: string, path: string): Promise<DocumentVersion[] | undefined> {
    if (!this.keepsVersions) return undefined;
    const Key = documentKey(tenant, project, path);
    const versions: (DocumentVersion & { latest: boolean })[] = [];
    let KeyMarker: string | undefined;
    let VersionIdMarker: string | undefined;
    do {
      const page = await this.listVersionsPage(Key, KeyMarker, VersionIdMarker);
      for (const v of page.Versions ?? []) {
        if (v.Key !== Key || !v.VersionId || v.VersionId === "null") continue;
        versions.push({
          versionId: v.VersionId,
          etag: bareEtag(v.ETag),
          lastModified: (v.LastModified ?? new Date(0)).toISOString(),
          size: v.Size ?? 0,
          latest: v.IsLatest === true,
        });
      }
      // Keys come in byte order and the key sorts first under its own prefix: once a page or its
      // marker reaches another key, no later page holds a version of this one (a document `notes`
      // next to a large `notes/` folder costs one page, not the folder's every version).
      const pastKey = page.NextKeyMarker !== Key || [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].some((v) => v.Key !== Key);
      const more = page.IsTruncated === true && !pastKey && versions.length < MAX_LISTED_VERSIONS;
      KeyMarker = more ? page.NextKeyMarker : undefined;
      VersionIdMarker = more ? page.NextVersionIdMarker : undefined;
    } while (KeyMarker);
    const listed = versions
      .sort((a, b) =>
        a.latest !== b.latest ? (a.latest ? -1 : 1) : a.lastModified < b.lastModified ? 1 : a.lastModified > b.lastModified ? -1 : 0,
      )
      .slice(0, MAX_LISTED_VERSIONS)
      .map(({ latest: _latest, ...v }) => v);
    return mapWithConcurrency(listed, VERSION_HEAD_CONCURRENCY, async (version, index) => {
      if (index >= MAX_WRITER_LOOKUPS) return version;
      const writtenBy = await this.writerOf(Key, version.versionId);
      return writtenBy ? { ...version, writtenBy } : version;
    });
  }

  private async listVersionsPage(
    Key: string,
    KeyMarker: string | undefined,
    VersionIdMarker: string | undefined,
  ): Promise<ListObjectVersionsCommandOutput> {
    try {
      return await this.client.send(new ListObjectVersionsCommand({ Bucket: this.bucket, Prefix: Key, KeyMarker, VersionIdMarker }));
    } catch (error) {
      throw deniedAs(error, "s3:ListBucketVersions", `bucket ${this.bucket}`);
    }
  }

  /** A version that expired between the listing and the HeadObject has no known writer. */
  private async writerOf(Key: string, VersionId: string): Promise<string | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key, VersionId }));
      return writtenByOf(head.Metadata);
    } catch (error) {
      if (isNoSuchVersion(error)) return undefined;
      throw deniedAs(error, "s3:GetObjectVersion", `${this.bucket}/${Key}`);
    }
  }

  async getVersion(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options: GetVersionOptions = {},
  ): Promise<StoredDocument | undefined> {
    if (!this.keepsVersions) return undefined;
    const Key = documentKey(tenant, project, path);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, VersionId: versionId }));
      // The body is a socket stream: closing it stops the download instead of buffering it.
      if (options.maxBytes !== undefined && (out.ContentLength ?? 0) > options.maxBytes)
        (out.Body as { destroy?: () => void } | undefined)?.destroy?.();
      assertReadableSize(path, out.ContentLength, options.maxBytes);
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      assertReadableSize(path, body.byteLength, options.maxBytes);
      return {
        path,
        etag: bareEtag(out.ETag),
        size: body.byteLength,
        body,
        contentType: out.ContentType,
        writtenBy: writtenByOf(out.Metadata),
        ...modeOf(out.Metadata),
      };
    } catch (error) {
      if (isNoSuchVersion(error)) return undefined;
      throw deniedAs(error, "s3:GetObjectVersion", `${this.bucket}/${Key}`);
    }
  }
}
