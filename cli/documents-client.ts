import { validateDocumentPath, validateDocumentPrefix } from "../shared/documents/document-path.js";
import { bareEtag } from "../shared/documents/document-body.js";
import { sleep } from "../shared/support/retry-backoff.js";
import type { Sleep } from "../shared/support/retry-backoff.js";
import type { RemoteTarget } from "./remote-target.js";

/** One entry of `GET …/documents?prefix=` (API.md "Documents"). */
export interface RemoteDocument {
  path: string;
  etag: string;
  size: number;
}

export interface RemoteProblem {
  path?: string;
  line?: number;
  message: string;
  severity?: string;
}

export interface SavedDocument {
  path: string;
  etag: string;
  warnings: RemoteProblem[];
}

/** The documents API of one level, as `push` and `pull` use it. */
export interface DocumentsApi {
  list(prefix: string): Promise<RemoteDocument[]>;
  put(path: string, body: Uint8Array): Promise<SavedDocument>;
  get(path: string): Promise<Uint8Array>;
  delete(path: string): Promise<void>;
  /** `GET …?versions` (API.md "Author's loop"); optional so test doubles need not implement it. */
  versions?(path: string): Promise<RemoteVersion[]>;
  /** `POST …/{path}:restore`. */
  restore?(path: string, versionId: string): Promise<SavedDocument>;
}

export interface RemoteVersion {
  versionId: string;
  etag: string;
  lastModified: string;
  size: number;
}

/** A non-2xx answer, with the service's error code and, for INVALID_DOCUMENT, its problems. */
export class DocumentsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: RemoteProblem[] = [],
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** 429 and 503 say "try again" (API.md, gateway codes); a push of hundreds of skills meets them. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 4;
const MAX_RETRY_AFTER_MS = 5_000;

async function errorOf(response: Response): Promise<DocumentsApiError> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; problems?: RemoteProblem[] } };
    const error = body.error ?? {};
    return new DocumentsApiError(response.status, error.code ?? "HTTP_ERROR", error.message ?? response.statusText, Array.isArray(error.problems) ? error.problems : []);
  } catch {
    return new DocumentsApiError(response.status, "HTTP_ERROR", text.slice(0, 200) || response.statusText);
  }
}

interface ClientOptions {
  fetch?: typeof globalThis.fetch;
  sleep?: Sleep;
}

export function httpDocumentsApi(target: RemoteTarget, options: ClientOptions = {}): DocumentsApi {
  const doFetch = options.fetch ?? globalThis.fetch;
  const wait = options.sleep ?? sleep;
  const base = target.baseUrl.href.replace(/\/+$/, "");
  const levelUrl = `${base}/brain/${encodeURIComponent(target.tenant)}/projects/${encodeURIComponent(target.level)}/documents`;
  // Paths are validated first: every segment is plain ASCII, so encoding changes nothing but is kept for clarity.
  const documentUrl = (path: string): string => `${levelUrl}/${validateDocumentPath(path).split("/").map(encodeURIComponent).join("/")}`;

  async function call(url: string, init: RequestInit): Promise<Response> {
    const headers = { authorization: `Bearer ${target.token}`, ...(init.headers as Record<string, string> | undefined) };
    for (let attempt = 1; ; attempt += 1) {
      const response = await doFetch(url, { ...init, headers }).catch((error: unknown) => {
        const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
        throw new Error(`cannot reach ${base} (${error instanceof Error ? error.message : String(error)}${cause}); is the service running? Locally: npm start, or pass --url`);
      });
      if (response.ok || !RETRYABLE.has(response.status) || attempt >= MAX_ATTEMPTS) {
        if (!response.ok) throw await errorOf(response);
        return response;
      }
      await response.body?.cancel();
      const retryAfter = Number.parseFloat(response.headers.get("retry-after") ?? "");
      await wait(Number.isFinite(retryAfter) ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) : 200 * 2 ** attempt);
    }
  }

  return {
    async list(prefix) {
      const response = await call(`${levelUrl}?prefix=${encodeURIComponent(validateDocumentPrefix(prefix))}`, { method: "GET" });
      const body = (await response.json()) as { documents?: RemoteDocument[] };
      return (body.documents ?? []).map((d) => ({ path: String(d.path), etag: bareEtag(String(d.etag)), size: Number(d.size) }));
    },
    async put(path, body) {
      // No content type: the service then derives one from the file name, as it does for an editor upload.
      const response = await call(documentUrl(path), { method: "PUT", body });
      const saved = (await response.json()) as Partial<SavedDocument>;
      return { path: saved.path ?? path, etag: bareEtag(saved.etag), warnings: Array.isArray(saved.warnings) ? saved.warnings : [] };
    },
    async get(path) {
      const response = await call(documentUrl(path), { method: "GET" });
      return new Uint8Array(await response.arrayBuffer());
    },
    async delete(path) {
      const response = await call(documentUrl(path), { method: "DELETE" });
      await response.body?.cancel();
    },
    async versions(path) {
      const response = await call(`${documentUrl(path)}?versions`, { method: "GET" });
      return ((await response.json()) as { versions?: RemoteVersion[] }).versions ?? [];
    },
    async restore(path, versionId) {
      const response = await call(`${documentUrl(path)}:restore`, { method: "POST", body: JSON.stringify({ versionId }), headers: { "content-type": "application/json" } });
      const saved = (await response.json()) as Partial<SavedDocument>;
      return { path: saved.path ?? path, etag: bareEtag(saved.etag), warnings: Array.isArray(saved.warnings) ? saved.warnings : [] };
    },
  };
}
