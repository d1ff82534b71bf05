/**
 * The LevelUsage port (issue 27): per-level counters that the documents API's limits and the
 * PATTERN cap read instead of listing the level, one entry per document (its size and PATTERN
 * triggers, so a write knows what it replaces without reading S3, and racing writers of one path
 * each count against the exact entry they replace), and one claim per case-folded skill name so a
 * case collision is found without listing. Adapters: dynamodb-level-usage.ts (AWS),
 * in-memory-level-usage.ts (unit tests). Without one, DocumentService lists the level on every
 * write, as before.
 */
import type { StoredDigest } from "../documents/document-digests.js";

export interface LevelCounts {
  /** Documents of the level (every path, not only `_vance/`). */
  documents: number;
  bytes: number;
  /** PATTERN triggers of the level's SKILL.md files. */
  patterns: number;
}

/** What one document adds to its level's counters. */
export interface PathUsage {
  size: number;
  patterns: number;
  /** The SHA-256 of the bytes written (issue 32): kept on the entry, never counted or compared. */
  digest?: StoredDigest | undefined;
}

export interface LevelUsageRead {
  counts: LevelCounts;
  /** The entry of the path asked for; undefined when the level has no document there. */
  entry: PathUsage | undefined;
}

export interface LevelUsage {
  /** The counters and `path`'s entry in one round trip, or undefined when the level was never seeded. */
  read(tenant: string, project: string, path: string): Promise<LevelUsageRead | undefined>;
  /**
   * Seeds the entries, the name claims and the counters from one listing, only when no counters
   * exist yet (a racing seeder's counters stand). `names` are the level's skill folders.
   */
  seed(tenant: string, project: string, entries: ReadonlyMap<string, PathUsage>, names: readonly string[]): Promise<void>;
  /**
   * Sets `path`'s entry (undefined: deleted) and adds the difference to the counters. `expected` is
   * the entry read before; when another writer changed it meanwhile, the difference is taken
   * against the entry it left. Does nothing on a level that was never seeded.
   */
  record(tenant: string, project: string, path: string, entry: PathUsage | undefined, expected?: PathUsage): Promise<void>;
  /** Claims `folded` for `name`; resolves to the other name that holds it, else undefined (claimed). */
  claimName(tenant: string, project: string, folded: string, name: string): Promise<string | undefined>;
  /** Hands `folded` to `name` whatever held it (the holder's SKILL.md is gone). */
  forceName(tenant: string, project: string, folded: string, name: string): Promise<void>;
  /** Frees `folded` if `name` holds it. */
  releaseName(tenant: string, project: string, folded: string, name: string): Promise<void>;
}

export const countsOf = (entries: Iterable<PathUsage>): LevelCounts => {
  const counts: LevelCounts = { documents: 0, bytes: 0, patterns: 0 };
  for (const entry of entries) {
    counts.documents += 1;
    counts.bytes += entry.size;
    counts.patterns += entry.patterns;
  }
  return counts;
};

/** What replacing `before` with `after` adds to the counters. */
export const usageDelta = (before: PathUsage | undefined, after: PathUsage | undefined): LevelCounts => ({
  documents: (after ? 1 : 0) - (before ? 1 : 0),
  bytes: (after?.size ?? 0) - (before?.size ?? 0),
  patterns: (after?.patterns ?? 0) - (before?.patterns ?? 0),
});
