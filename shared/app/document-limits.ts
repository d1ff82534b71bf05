import { InvalidDocument } from "../errors.js";
import type { DocumentRef } from "../documents/document-store.js";

/**
 * Bytes one document may hold, on every write of the documents API: a PUT body (the route refuses
 * it before decoding) and a restored version (which may have been written around the API). A raw
 * upload arrives whole in one Lambda event (6 MB, base64 for binary types), so documents are
 * capped below that; SKILL.md and recipes have their own, smaller parser limits.
 */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

/**
 * Per-project-level caps on what the documents API stores (docs/decisions.md, hardening):
 * without them one member could fill a level with millions of objects, and every listing,
 * catalogue load and cap check of that level would pay for it.
 */
export interface DocumentLimits {
  /** Documents one level (a project, `_tenant` or `_user_<login>`) may hold. */
  maxDocumentsPerProject: number;
  /** Bytes of all documents of one level together. */
  maxProjectBytes: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = Object.freeze({
  maxDocumentsPerProject: 10_000,
  maxProjectBytes: 256 * 1024 * 1024,
});

/**
 * Refuses a PUT of `bytes` at `path` that would take the level past a cap. An overwrite keeps
 * the count, and one that does not grow is always allowed, so a level that is over a cap (the
 * cap was lowered, or concurrent PUTs overshot it: count-then-put, bounded by their number) can
 * still be edited and shrunk.
 */
export function assertWithinDocumentLimits(
  limits: DocumentLimits,
  project: string,
  path: string,
  bytes: number,
  level: readonly DocumentRef[],
): void {
  const existing = level.find((ref) => ref.path === path);
  const used = { documents: level.length, bytes: level.reduce((sum, ref) => sum + ref.size, 0) };
  assertWithinLevelCounts(limits, project, path, bytes, used, existing?.size);
}

/** The same rule on the level's counters (issue 27: no listing): `existingSize` is the size of the document the PUT replaces. */
export function assertWithinLevelCounts(
  limits: DocumentLimits,
  project: string,
  path: string,
  bytes: number,
  used: { documents: number; bytes: number },
  existingSize: number | undefined,
): void {
  const problem = (message: string): InvalidDocument => new InvalidDocument(path, [{ path, message, severity: "error" }]);
  if (existingSize === undefined && used.documents >= limits.maxDocumentsPerProject) {
    throw problem(
      `level '${project}' holds ${used.documents} documents, the most allowed (${limits.maxDocumentsPerProject}); delete documents before adding new ones`,
    );
  }
  const growth = bytes - (existingSize ?? 0);
  if (growth <= 0) return;
  if (used.bytes + growth > limits.maxProjectBytes) {
    throw problem(
      `level '${project}' would hold ${used.bytes + growth} bytes, more than the ${limits.maxProjectBytes} allowed (${used.bytes} used); delete documents first`,
    );
  }
}
