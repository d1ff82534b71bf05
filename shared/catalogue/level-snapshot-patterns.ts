import { patternCount } from "../skills/triggers/trigger-caps.js";
import { EMPTY_LEVEL_SNAPSHOT, type CatalogueVersions } from "./catalogue-versions.js";
import { decodeLevelSnapshot } from "./level-snapshot-codec.js";
import type { LevelSnapshotStore } from "./level-snapshot-store.js";

/** PATTERN triggers of a SKILL.md as the level snapshot parsed it, valid for exactly that ETag. */
export interface KnownPatterns {
  etag: string;
  patterns: number;
}

/** What the one-time counter seed of a level may take instead of reading a SKILL.md (issue 27). */
export type LevelPatternHints = (tenant: string, project: string) => Promise<ReadonlyMap<string, KnownPatterns>>;

/**
 * PATTERN counts from the level's latest snapshot, by path. Any snapshot will do, stale or not:
 * an entry only stands for the ETag it was parsed at, so the seed reads every SKILL.md whose ETag
 * the listing shows changed (and every defective one: the snapshot keeps no definition for it,
 * while the counters count the triggers of whatever the parser gets out of it). No pointer, an
 * empty level or an unreadable object: no hints, the seed reads every SKILL.md as before.
 */
export function snapshotPatternHints(versions: CatalogueVersions, snapshots: LevelSnapshotStore): LevelPatternHints {
  return async (tenant, project) => {
    const hints = new Map<string, KnownPatterns>();
    const pointer = (await versions.read(tenant, [project])).get(project)?.snapshot;
    if (!pointer || pointer.key === EMPTY_LEVEL_SNAPSHOT) return hints;
    let content: ReturnType<typeof decodeLevelSnapshot>;
    try {
      const bytes = await snapshots.get(pointer.key);
      if (!bytes) return hints;
      content = decodeLevelSnapshot(bytes);
    } catch {
      return hints;
    }
    for (const [path, prepared] of content.prepared) {
      if (!prepared.outcome.ok) continue;
      const triggers = (prepared.outcome.definition as { triggers?: Parameters<typeof patternCount>[0] }).triggers;
      hints.set(path, { etag: prepared.etag, patterns: patternCount(triggers) });
    }
    return hints;
  };
}
