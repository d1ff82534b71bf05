import { mapWithConcurrency, type DocumentPreparer, type PreparedDocument } from "../documents/cascade-layers.js";
import { messageOf } from "../documents/cascade-resolver.js";
import type { DocumentRef, StoredDocument } from "../documents/document-store.js";
import { isTransientServiceError } from "../support/transient-errors.js";

/** Documents read and parsed at once while a level's outcomes are prepared. */
const PREPARE_CONCURRENCY = 16;

/**
 * Parse outcomes of the listed documents `preparer` handles: a `known` one is kept when its ETag is
 * the listed one, the others are read and parsed. A document gone or changed since the listing is
 * left out (the lookup finds it as it is); an unreadable one is defective; a transient failure throws.
 */
export async function prepareLevelOutcomes(
  refs: readonly DocumentRef[],
  known: ReadonlyMap<string, PreparedDocument> | undefined,
  preparer: DocumentPreparer,
  read: (path: string) => Promise<StoredDocument | undefined>,
): Promise<Map<string, PreparedDocument>> {
  const wanted = refs.filter((ref) => preparer.handles(ref.path));
  const outcomes = await mapWithConcurrency(wanted, PREPARE_CONCURRENCY, async (ref): Promise<PreparedDocument | undefined> => {
    const kept = known?.get(ref.path);
    if (kept !== undefined && kept.etag === ref.etag) return kept;
    let doc: StoredDocument | undefined;
    try {
      doc = await read(ref.path);
    } catch (error) {
      if (isTransientServiceError(error)) throw error;
      return { etag: ref.etag, outcome: { ok: false, findings: [{ message: `could not be read: ${messageOf(error)}` }] } };
    }
    // Gone since the listing: left to the lookup, which finds it absent.
    if (doc === undefined || doc.etag !== ref.etag) return undefined;
    return { etag: doc.etag, outcome: preparer.prepare(ref.path, doc) };
  });
  const prepared = new Map<string, PreparedDocument>();
  wanted.forEach((ref, i) => {
    const outcome = outcomes[i];
    if (outcome !== undefined) prepared.set(ref.path, outcome);
  });
  return prepared;
}
