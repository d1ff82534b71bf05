import { mapWithConcurrency } from "../documents/cascade-layers.js";
import { messageOf } from "../documents/cascade-resolver.js";
import { foldedSkillName } from "../skills/skill-name.js";
import { skillDocumentPatterns } from "../skills/skill-document-patterns.js";
import { skillDirectory, skillDirectoryNameOf } from "../skills/skill-paths.js";
import type { LevelVersion } from "./catalogue-versions.js";
import type { LevelUsage, PathUsage } from "./level-usage.js";
import { rebuildLevelSnapshot, type LevelSnapshotRebuildDeps } from "./level-snapshot-rebuild.js";

/** Changed keys of one event examined at once. */
const KEY_CONCURRENCY = 8;

export interface S3EventFollowUpDeps extends LevelSnapshotRebuildDeps {
  usage: LevelUsage;
}

/** What the follow-up of one bumped level did, for the function's log. */
export interface LevelFollowUp {
  tenant: string;
  project: string;
  /** Paths whose counter entry was set to what the bucket holds now; 0 when the level was never counted. */
  counted: number;
  /**
   * The level snapshot: rebuilt at the bumped version; superseded (the version moved on meanwhile:
   * the event of that newer write rebuilds, so a burst of uploads rebuilds about once, not once per
   * key); failed (a warning; the next cold start lists).
   */
  snapshot: "rebuilt" | "superseded" | "failed";
}

/**
 * What a write that bypassed the documents API (`aws s3 cp`) owes its level after the bump: the
 * per-level counters, the document's entry and its skill's case-folded name claim (issue 27,
 * level-usage.ts), then the level snapshot at the bumped version.
 *
 * Each changed path is recorded as the bucket holds it **now** (a GET of a SKILL.md, for its
 * PATTERN triggers; a one-key listing otherwise), not as the event tells it: events arrive late,
 * twice or out of order, and an API write records the same path itself, so the entry converges on
 * the object's current state whoever records first (a record against an entry already current adds
 * nothing). A level never counted is left alone: the documents API seeds it from a listing.
 *
 * Rejects when the counters cannot be written (the event is retried; recording again is
 * harmless). A snapshot that cannot be rebuilt is only a warning. The rebuild is skipped when the
 * level's version already moved past this bump: every write (the API's too) sends its own event,
 * whose handler rebuilds at that newer version.
 */
export async function followS3EventBump(
  deps: S3EventFollowUpDeps,
  tenant: string,
  project: string,
  version: LevelVersion,
  paths: readonly string[],
): Promise<LevelFollowUp> {
  const counted = await mapWithConcurrency(paths, KEY_CONCURRENCY, (path) => recordCurrentState(deps, tenant, project, path));
  let snapshot: LevelFollowUp["snapshot"] = "rebuilt";
  try {
    const current = (await deps.versions.read(tenant, [project])).get(project);
    if (current !== undefined && current.version > version.version) snapshot = "superseded";
    else await rebuildLevelSnapshot(deps, tenant, project, current ?? version);
  } catch (error) {
    snapshot = "failed";
    deps.logger.warn("Level snapshot not rebuilt after an S3 event: the next cold start lists the level", {
      tenant,
      project,
      error: messageOf(error),
    });
  }
  return { tenant, project, counted: counted.filter(Boolean).length, snapshot };
}

async function recordCurrentState(deps: S3EventFollowUpDeps, tenant: string, project: string, path: string): Promise<boolean> {
  const { store, usage } = deps;
  const read = await usage.read(tenant, project, path);
  if (!read) return false;
  const name = skillDirectoryNameOf(path);
  let entry: PathUsage | undefined;
  if (name !== undefined) {
    const doc = await store.get(tenant, project, path);
    entry = doc && { size: doc.body.byteLength, patterns: skillDocumentPatterns(name, doc.body, path) };
  } else {
    const ref = (await store.list(tenant, project, path)).find((r) => r.path === path);
    entry = ref && { size: ref.size, patterns: 0 };
  }
  await usage.record(tenant, project, path, entry, read.entry);
  if (name !== undefined) await keepNameClaim(deps, tenant, project, name, entry !== undefined);
  return true;
}

/** The skill's claim follows its SKILL.md; a folder whose folded name another live skill holds is logged (the catalogue shows both). */
async function keepNameClaim(deps: S3EventFollowUpDeps, tenant: string, project: string, name: string, exists: boolean): Promise<void> {
  const { store, usage } = deps;
  const folded = foldedSkillName(name);
  if (!exists) {
    await usage.releaseName(tenant, project, folded, name);
    return;
  }
  const holder = await usage.claimName(tenant, project, folded, name);
  if (holder === undefined) return;
  if (await store.get(tenant, project, `${skillDirectory(holder)}/SKILL.md`)) {
    deps.logger.warn("Skill written around the API collides with another skill's name (case-folded): the claim stays with the other", {
      tenant,
      project,
      name,
      holder,
    });
    return;
  }
  await usage.forceName(tenant, project, folded, name);
}
