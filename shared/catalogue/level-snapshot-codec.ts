import { gunzipSync, gzipSync } from "node:zlib";
import type { PreparedDocument } from "../documents/cascade-layers.js";
import type { DocumentRef } from "../documents/document-store.js";

/**
 * The level snapshot as stored (issue 27): one gzip'd JSON object per level with the `_vance/`
 * listing and, per SKILL.md, its parse outcome without the body (PreparedDocument). FORMAT moves
 * whenever the meaning of a field changes; a snapshot of another format is not read (the level is
 * listed and the snapshot rebuilt), so an old or newer writer can never feed a wrong shape.
 *
 * Format 2: a prepared document names its listing entry by index (its path and ETag are the
 * entry's) and its outcome as `[index, definition, warnings]` or `[index, null, findings]`. A
 * cold instance parses every byte of it, and arrays of plain values parse several times faster
 * than objects: format 1 spent a path, an ETag and two wrapper objects more per document.
 */
export const LEVEL_SNAPSHOT_FORMAT = 2;

/** A snapshot larger than this once unzipped is refused as corrupt (20 000 documents fit well below it). */
const MAX_SNAPSHOT_JSON_BYTES = 256 * 1024 * 1024;

export interface LevelSnapshotContent {
  /** The level version the listing was taken at (read before listing, so the listing is at least that new). */
  version: number;
  changedAt: string | null;
  /** Decoded: a frozen array of frozen refs (CatalogueLevel installs them as they are). */
  refs: readonly DocumentRef[];
  /** Every path is one of `refs`, with that entry's ETag (a prepared outcome of anything else is never served). */
  prepared: ReadonlyMap<string, PreparedDocument>;
  /** DocumentPreparer.levelExtras: derived data a reader would otherwise compute again (any JSON; absent in older snapshots). */
  extras?: unknown;
}

/** A stored snapshot that cannot be used: truncated, not JSON, another format. */
export class LevelSnapshotUnreadable extends Error {
  constructor(reason: string) {
    super(`level snapshot unreadable: ${reason}`);
    this.name = "LevelSnapshotUnreadable";
  }
}

type StoredOutcome = [index: number, definition: unknown, warnings: unknown] | [index: number, definition: null, findings: unknown];

export function encodeLevelSnapshot(content: LevelSnapshotContent): Uint8Array {
  const indexOf = new Map<string, number>();
  content.refs.forEach((ref, i) => indexOf.set(ref.path, i));
  const prepared: StoredOutcome[] = [];
  for (const [path, p] of content.prepared) {
    const index = indexOf.get(path);
    // An outcome of another ETag than the listing's is never served (preparedOutcome): not worth keeping.
    if (index === undefined || content.refs[index]!.etag !== p.etag) continue;
    prepared.push(p.outcome.ok ? [index, p.outcome.definition, p.outcome.warnings] : [index, null, p.outcome.findings]);
  }
  const json = JSON.stringify({
    format: LEVEL_SNAPSHOT_FORMAT,
    version: content.version,
    changedAt: content.changedAt,
    refs: content.refs.map((ref) => [ref.path, ref.etag, ref.size]),
    prepared,
    ...(content.extras === undefined ? {} : { extras: content.extras }),
  });
  // Level 1: the JSON repeats itself (field names, paths) so it already shrinks ~10×; more costs CPU on every rebuild.
  return gzipSync(json, { level: 1 });
}

/**
 * One pass per array with indexed loops: this runs once per cold level over every document of
 * it, before the code is optimized, so every allocation and iterator here is paid 10 000 times.
 */
export function decodeLevelSnapshot(bytes: Uint8Array): LevelSnapshotContent {
  let data: unknown;
  try {
    const json = gunzipSync(bytes, { maxOutputLength: MAX_SNAPSHOT_JSON_BYTES }).toString("utf8");
    data = JSON.parse(json);
  } catch (error) {
    throw new LevelSnapshotUnreadable(error instanceof Error ? error.message : String(error));
  }
  const o = data as {
    format?: unknown;
    version?: unknown;
    changedAt?: unknown;
    refs?: unknown;
    prepared?: unknown;
    extras?: unknown;
  } | null;
  if (o === null || typeof o !== "object") throw new LevelSnapshotUnreadable("not an object");
  if (o.format !== LEVEL_SNAPSHOT_FORMAT)
    throw new LevelSnapshotUnreadable(`format ${String(o.format).slice(0, 20)}, this reader knows ${LEVEL_SNAPSHOT_FORMAT}`);
  if (typeof o.version !== "number" || !(o.changedAt === null || typeof o.changedAt === "string"))
    throw new LevelSnapshotUnreadable("no version");
  if (!Array.isArray(o.refs) || !Array.isArray(o.prepared)) throw new LevelSnapshotUnreadable("no listing");
  const stored = o.refs as unknown[];
  const refs = new Array<DocumentRef>(stored.length);
  for (let i = 0; i < stored.length; i++) {
    const entry = stored[i];
    if (!Array.isArray(entry)) throw new LevelSnapshotUnreadable("malformed listing entry");
    const path: unknown = entry[0];
    const etag: unknown = entry[1];
    const size: unknown = entry[2];
    if (typeof path !== "string" || typeof etag !== "string" || typeof size !== "number")
      throw new LevelSnapshotUnreadable("malformed listing entry");
    refs[i] = Object.freeze({ path, etag, size });
  }
  const outcomes = o.prepared as unknown[];
  const prepared = new Map<string, PreparedDocument>();
  for (let i = 0; i < outcomes.length; i++) {
    const entry = outcomes[i];
    if (!Array.isArray(entry)) throw new LevelSnapshotUnreadable("malformed document entry");
    const index: unknown = entry[0];
    const definition: unknown = entry[1];
    const problems: unknown = entry[2];
    const ref = typeof index === "number" ? refs[index] : undefined;
    if (ref === undefined || !Array.isArray(problems) || typeof definition !== "object")
      throw new LevelSnapshotUnreadable("malformed document entry");
    prepared.set(ref.path, {
      etag: ref.etag,
      outcome: definition === null ? { ok: false, findings: problems } : { ok: true, definition, warnings: problems },
    });
  }
  return {
    version: o.version,
    changedAt: o.changedAt,
    refs: Object.freeze(refs),
    prepared,
    ...(o.extras === undefined ? {} : { extras: o.extras }),
  };
}
