import { gunzipSync, gzipSync } from "node:zlib";
import type { PreparedDocument } from "../documents/cascade-layers.js";
import type { DocumentRef } from "../documents/document-store.js";

/**
 * The level snapshot as stored (issue 27): one gzip'd JSON object per level with the `_vance/`
 * listing and, per SKILL.md, its parse outcome without the body (PreparedDocument). FORMAT moves
 * whenever the meaning of a field changes; a snapshot of another format is not read (the level is
 * listed and the snapshot rebuilt), so an old or newer writer can never feed a wrong shape.
 */
export const LEVEL_SNAPSHOT_FORMAT = 1;

/** A snapshot larger than this once unzipped is refused as corrupt (20 000 documents fit well below it). */
const MAX_SNAPSHOT_JSON_BYTES = 256 * 1024 * 1024;

export interface LevelSnapshotContent {
  /** The level version the listing was taken at (read before listing, so the listing is at least that new). */
  version: number;
  changedAt: string | null;
  refs: readonly DocumentRef[];
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

export function encodeLevelSnapshot(content: LevelSnapshotContent): Uint8Array {
  const json = JSON.stringify({
    format: LEVEL_SNAPSHOT_FORMAT,
    version: content.version,
    changedAt: content.changedAt,
    refs: content.refs.map((ref) => [ref.path, ref.etag, ref.size]),
    prepared: [...content.prepared].map(([path, p]) => [path, p.etag, p.outcome]),
    ...(content.extras === undefined ? {} : { extras: content.extras }),
  });
  // Level 1: the JSON repeats itself (field names, paths) so it already shrinks ~10×; more costs CPU on every rebuild.
  return gzipSync(json, { level: 1 });
}

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
  const refs: DocumentRef[] = [];
  for (const entry of o.refs as unknown[]) {
    const [path, etag, size] = Array.isArray(entry) ? entry : [];
    if (typeof path !== "string" || typeof etag !== "string" || typeof size !== "number")
      throw new LevelSnapshotUnreadable("malformed listing entry");
    refs.push({ path, etag, size });
  }
  const prepared = new Map<string, PreparedDocument>();
  for (const entry of o.prepared as unknown[]) {
    const [path, etag, outcome] = Array.isArray(entry) ? entry : [];
    if (typeof path !== "string" || typeof etag !== "string" || !isOutcome(outcome))
      throw new LevelSnapshotUnreadable("malformed document entry");
    prepared.set(path, { etag, outcome });
  }
  return { version: o.version, changedAt: o.changedAt, refs, prepared, ...(o.extras === undefined ? {} : { extras: o.extras }) };
}

function isOutcome(value: unknown): value is PreparedDocument["outcome"] {
  if (value === null || typeof value !== "object") return false;
  const o = value as { ok?: unknown; definition?: unknown; warnings?: unknown; findings?: unknown };
  if (o.ok === true) return o.definition !== null && typeof o.definition === "object" && Array.isArray(o.warnings);
  return o.ok === false && Array.isArray(o.findings);
}
