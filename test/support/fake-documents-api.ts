import { md5Etag } from "../../shared/documents/document-body.js";
import { SkillsApiError } from "../../client/index.js";
import type { DocumentEntry, SavedDocument } from "../../client/index.js";
import type { DocumentsApi, RemoteFile } from "../../cli/documents-client.js";

/**
 * The documents API of one level in memory, for the CLI's push and pull: S3-style ETags (MD5 hex),
 * every call recorded in order, the highest number of calls in flight at once, and failures on
 * chosen paths.
 */
export class FakeDocumentsApi implements DocumentsApi {
  readonly documents = new Map<string, Uint8Array>();
  /** The mode each PUT gave, by path (as the service keeps it in object metadata). */
  readonly modes = new Map<string, number>();
  readonly calls: string[] = [];
  maxInFlight = 0;
  /** How long each call takes; 0 is one turn of the event loop. */
  latencyMs = 0;
  private inFlight = 0;
  /** A PUT of one of these paths answers this error. */
  readonly failPut = new Map<string, SkillsApiError>();

  private async track<T>(call: string, work: () => T): Promise<T> {
    this.calls.push(call);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // A turn of the event loop, so concurrent calls really overlap.
      await new Promise((resolve) => (this.latencyMs > 0 ? setTimeout(resolve, this.latencyMs) : setImmediate(resolve)));
      return work();
    } finally {
      this.inFlight -= 1;
    }
  }

  list(prefix: string): Promise<DocumentEntry[]> {
    return this.track(`LIST ${prefix}`, () =>
      [...this.documents]
        .filter(([path]) => path.startsWith(prefix))
        .map(([path, body]) => ({ path, etag: md5Etag(body), size: body.byteLength }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
  }

  put(path: string, body: Uint8Array, options: { mode?: number } = {}): Promise<SavedDocument> {
    return this.track(`PUT ${path}`, () => {
      const failure = this.failPut.get(path);
      if (failure) throw failure;
      this.documents.set(path, Uint8Array.from(body));
      if (options.mode !== undefined) this.modes.set(path, options.mode);
      else this.modes.delete(path);
      return { path, etag: md5Etag(body), warnings: [] };
    });
  }

  get(path: string): Promise<Uint8Array> {
    return this.track(`GET ${path}`, () => {
      const body = this.documents.get(path);
      if (!body) throw new SkillsApiError(404, "DOCUMENT_NOT_FOUND", path);
      return body;
    });
  }

  getFile(path: string): Promise<RemoteFile> {
    return this.track(`GET ${path}`, () => {
      const body = this.documents.get(path);
      if (!body) throw new SkillsApiError(404, "DOCUMENT_NOT_FOUND", path);
      return { body, mode: this.modes.get(path) };
    });
  }

  delete(path: string): Promise<void> {
    return this.track(`DELETE ${path}`, () => {
      if (!this.documents.delete(path)) throw new SkillsApiError(404, "DOCUMENT_NOT_FOUND", path);
    });
  }

  /** The PUT calls only, in order. */
  puts(): string[] {
    return this.calls.filter((c) => c.startsWith("PUT ")).map((c) => c.slice(4));
  }
}
