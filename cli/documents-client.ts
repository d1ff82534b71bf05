import { validateDocumentPath, validateDocumentPrefix } from "../shared/documents/document-path.js";
import { bareEtag } from "../shared/documents/document-body.js";
import { sleep } from "../shared/support/retry-backoff.js";
import type { Sleep } from "../shared/support/retry-backoff.js";
import { SkillsClient, SkillsConnectionError } from "../client/index.js";
import type { DocumentBody, DocumentEntry, DocumentVersion, SavedDocument } from "../client/index.js";
import type { RemoteTarget } from "./remote-target.js";

/** A document's bytes with the permission bits it was written with, where any were given. */
export type RemoteFile = Pick<DocumentBody, "body" | "mode">;

/** The documents API of one level, as `push` and `pull` use it. */
export interface DocumentsApi {
  list(prefix: string): Promise<DocumentEntry[]>;
  /** `mode`: the local file's permission bits, kept with the document (header `Skills-File-Mode`). */
  put(path: string, body: Uint8Array, options?: { mode?: number }): Promise<SavedDocument>;
  get(path: string): Promise<Uint8Array>;
  /** As `get`, with the stored mode; optional so test doubles need not implement it (pull then keeps default modes). */
  getFile?(path: string): Promise<RemoteFile>;
  delete(path: string): Promise<void>;
  /** `GET …?versions` (API.md "Author's loop"); optional so test doubles need not implement it. */
  versions?(path: string): Promise<DocumentVersion[]>;
  /** `POST …/{path}:restore`. */
  restore?(path: string, versionId: string): Promise<SavedDocument>;
}

interface ClientOptions {
  fetch?: typeof globalThis.fetch;
  sleep?: Sleep;
}

/** The typed client's connection failure, said the way a CLI user can act on; its SkillsApiError (status, code, problems) passes as is. */
export async function translated<T>(call: () => Promise<T>, base: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SkillsConnectionError) {
      const cause = error.cause instanceof Error && error.cause.cause instanceof Error ? `: ${error.cause.cause.message}` : "";
      throw new Error(
        `cannot reach ${base} (${error.cause instanceof Error ? error.cause.message : String(error.cause)}${cause}); is the service running? Locally: npm start, or pass --url`,
      );
    }
    throw error;
  }
}

/** The documents API of one level over the typed client (client/): its retries of 429 / 503, its errors. */
export function httpDocumentsApi(target: RemoteTarget, options: ClientOptions = {}): DocumentsApi {
  const base = target.baseUrl.href.replace(/\/+$/, "");
  const client = new SkillsClient({
    baseUrl: base,
    tenant: target.tenant,
    token: target.token,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    sleep: options.sleep ?? sleep,
  });
  const level = target.level;
  return {
    list: (prefix) =>
      translated(async () => {
        const documents = await client.documents.list(level, { prefix: validateDocumentPrefix(prefix) });
        return documents.map((d) => ({ path: String(d.path), etag: bareEtag(String(d.etag)), size: Number(d.size) }));
      }, base),
    // No content type: the service then derives one from the file name, as it does for an editor upload.
    put: (path, body, options = {}) =>
      translated(async () => {
        const saved = await client.documents.put(
          level,
          validateDocumentPath(path),
          body,
          options.mode !== undefined ? { mode: options.mode } : {},
        );
        return { path: saved.path, etag: bareEtag(saved.etag), warnings: saved.warnings };
      }, base),
    get: (path) => translated(async () => (await client.documents.get(level, validateDocumentPath(path))).body, base),
    getFile: (path) =>
      translated(async () => {
        const doc = await client.documents.get(level, validateDocumentPath(path));
        return { body: doc.body, mode: doc.mode };
      }, base),
    delete: (path) => translated(() => client.documents.delete(level, validateDocumentPath(path)), base),
    versions: (path) =>
      translated(async () => (await client.documents.versions(level, validateDocumentPath(path))).map((v) => ({ ...v })), base),
    restore: (path, versionId) =>
      translated(async () => {
        const saved = await client.documents.restore(level, validateDocumentPath(path), versionId);
        return { path: saved.path, etag: bareEtag(saved.etag), warnings: saved.warnings };
      }, base),
  };
}
