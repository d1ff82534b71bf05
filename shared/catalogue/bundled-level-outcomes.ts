import type { DocumentPreparer, PreparedDocument } from "../documents/cascade-layers.js";
import { messageOf } from "../documents/cascade-resolver.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "../documents/document-store.js";
import type { Logger } from "../support/logger.js";
import { CATALOGUE_PREFIX } from "./catalogue-versions.js";
import { decodeLevelSnapshot, encodeLevelSnapshot, type LevelSnapshotContent } from "./level-snapshot-codec.js";
import { prepareLevelOutcomes } from "./prepare-level-outcomes.js";

/**
 * The RESOURCE layer as the catalogue reads it: any layer; the shipped one (BundledDocumentLayer)
 * also hands out the parse outcomes the asset build wrote beside its folder (issue 27).
 */
export type BundledLayer = DocumentLayer & {
  /** The bytes encodeBundledLevel wrote, undefined when there are none (running from source). */
  readPrepared?(): Promise<Uint8Array | undefined>;
};

const byPath = (a: DocumentRef, b: DocumentRef): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The bundled level's parse outcomes in the level snapshot format (version 0: the bundled level
 * has no version), with the preparer's level extras: what the asset build writes, from the
 * documents as the RESOURCE layer reads them (readBundledDocuments), ETags included.
 */
export function encodeBundledLevel(documents: ReadonlyMap<string, StoredDocument>, preparer: DocumentPreparer): Uint8Array {
  const refs = [...documents.values()]
    .filter((doc) => doc.path.startsWith(CATALOGUE_PREFIX))
    .map(({ path, etag, size }) => ({ path, etag, size }))
    .sort(byPath);
  const prepared = new Map<string, PreparedDocument>();
  for (const ref of refs) {
    if (preparer.handles(ref.path))
      prepared.set(ref.path, { etag: ref.etag, outcome: preparer.prepare(ref.path, documents.get(ref.path)!) });
  }
  const extras = preparer.levelExtras?.of({ refs, prepared });
  return encodeLevelSnapshot({ version: 0, changedAt: null, refs, prepared, ...(extras === undefined ? {} : { extras }) });
}

/** Per bundled layer and preparer: its level's outcomes, prepared once per process. */
const shared = new WeakMap<DocumentLayer, WeakMap<DocumentPreparer, Promise<ReadonlyMap<string, PreparedDocument>>>>();

/**
 * The RESOURCE level's parse outcomes, prepared once per process and handed to every tenant's
 * RESOURCE level (CatalogueLevel keeps them by ETag, so a tenant parses nothing). Safe to share:
 * they come from the bundled bytes alone, which are the same for every tenant and never change
 * while the process lives (spec §3); no tenant's lookup ever adds to them. The build's outcomes
 * are taken for the documents whose ETag they were made for, every other one is parsed here.
 * Undefined when the layer cannot be listed: the tenant's level then fails (or parses) as before.
 */
export function bundledLevelOutcomes(
  layer: BundledLayer,
  preparer: DocumentPreparer,
  logger: Pick<Logger, "warn">,
): Promise<ReadonlyMap<string, PreparedDocument> | undefined> {
  let byPreparer = shared.get(layer);
  if (byPreparer === undefined) shared.set(layer, (byPreparer = new WeakMap()));
  let outcomes = byPreparer.get(preparer);
  if (outcomes === undefined) {
    const pending = prepareBundledLevel(layer, preparer, logger);
    byPreparer.set(preparer, pending);
    // Not kept when it failed: the next cold level tries again, as it would on its own.
    pending.catch(() => {
      if (byPreparer.get(preparer) === pending) byPreparer.delete(preparer);
    });
    outcomes = pending;
  }
  return outcomes.catch(() => undefined);
}

async function prepareBundledLevel(
  layer: BundledLayer,
  preparer: DocumentPreparer,
  logger: Pick<Logger, "warn">,
): Promise<ReadonlyMap<string, PreparedDocument>> {
  const refs = await layer.list(CATALOGUE_PREFIX);
  const built = await builtOutcomes(layer, preparer, refs, logger);
  return prepareLevelOutcomes(refs, built, preparer, (path) => layer.read(path));
}

/** The build's outcomes, its extras handed to the preparer; undefined without a file, or (with a warning) when it cannot be used. */
async function builtOutcomes(
  layer: BundledLayer,
  preparer: DocumentPreparer,
  refs: readonly DocumentRef[],
  logger: Pick<Logger, "warn">,
): Promise<ReadonlyMap<string, PreparedDocument> | undefined> {
  let content: LevelSnapshotContent;
  try {
    const bytes = await layer.readPrepared?.();
    if (bytes === undefined) return undefined;
    content = decodeLevelSnapshot(bytes);
  } catch (error) {
    logger.warn("Bundled prepared outcomes unreadable: the bundled documents are parsed", { error: messageOf(error) });
    return undefined;
  }
  if (content.extras !== undefined) preparer.levelExtras?.use(content.extras, content);
  const stale = refs.filter((ref) => preparer.handles(ref.path) && content.prepared.get(ref.path)?.etag !== ref.etag);
  if (stale.length > 0) {
    logger.warn("Bundled prepared outcomes do not match these bundled documents: they are parsed", {
      paths: stale.slice(0, 10).map((ref) => ref.path),
      count: stale.length,
    });
  }
  return content.prepared;
}
