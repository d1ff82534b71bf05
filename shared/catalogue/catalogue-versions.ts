/**
 * The CatalogueVersions port: one counter per cascade level (tenant + document project), bumped
 * by every change of a document under `_vance/` in that level. A warm catalogue compares the
 * counters with the ones its snapshots were taken at; a level whose counter moved is listed again.
 * Adapters: in-memory-catalogue-versions.ts (tests, local), dynamodb-catalogue-versions.ts (AWS).
 */

/** Only documents under this prefix make up the catalogue (skills, recipes); other writes bump nothing. */
export const CATALOGUE_PREFIX = "_vance/";

export interface LevelVersion {
  /** 0 for a level that was never bumped. */
  version: number;
  /** ISO time of the last bump; tells a counter that was reset apart from the one seen before. */
  changedAt: string | null;
  /** The level's latest snapshot (issue 27), when one was written; it may be older than `version`. */
  snapshot?: SnapshotPointer | undefined;
}

/** Which snapshot object holds a level's listing and parse outcomes, and the version it was taken at. */
export interface SnapshotPointer {
  version: number;
  /** The object's key, or EMPTY_LEVEL_SNAPSHOT: the level had no `_vance/` document at `version` (no object to read). */
  key: string;
  /** The level's changedAt at `version` (an empty level's pointer is trusted only when it matches). */
  changedAt?: string | null | undefined;
}

/** The pointer key of a level that had no catalogue document: a cold reader installs an empty level without a GET (never a real key: those start with `catalogue-snapshots/`). */
export const EMPTY_LEVEL_SNAPSHOT = "empty";

export const UNVERSIONED: LevelVersion = Object.freeze({ version: 0, changedAt: null });

export interface CatalogueVersions {
  /** Atomically increments the level's counter (creating it at 1) and returns the new value. */
  bump(tenant: string, project: string): Promise<LevelVersion>;
  /**
   * The current counters of `projects` (a strongly consistent read, so a bump that returned before
   * the read started is seen); a level never bumped is UNVERSIONED. One round trip for all of them.
   */
  read(tenant: string, projects: readonly string[]): Promise<Map<string, LevelVersion>>;
  /**
   * Points the level at a newer snapshot: only when the current pointer is older than
   * `pointer.version`, or is `replacing` (a snapshot found unreadable). A stale writer loses
   * (`moved: false`); a winner learns the key it replaced, read in the same atomic write (what it
   * read before may already be outdated by a racing writer). Optional: without it no snapshot is written.
   */
  pointSnapshot?(tenant: string, project: string, pointer: SnapshotPointer, replacing?: string): Promise<SnapshotMove>;
}

/** What pointSnapshot did: nothing, or moved the pointer away from `replaced` (undefined: there was none). */
export type SnapshotMove = { moved: false } | { moved: true; replaced: string | undefined };

/** What a snapshot remembers of the version it was taken at. */
export const versionToken = (version: LevelVersion): string => `${version.version}@${version.changedAt ?? ""}`;

export const affectsCatalogue = (path: string): boolean => path.startsWith(CATALOGUE_PREFIX);
