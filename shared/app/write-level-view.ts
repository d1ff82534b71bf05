import { mapWithConcurrency } from "../documents/cascade-layers.js";
import type { DocumentRef, DocumentStore } from "../documents/document-store.js";
import type { LevelUsage, PathUsage } from "../catalogue/level-usage.js";
import type { LevelPatternHints } from "../catalogue/level-snapshot-patterns.js";
import { SKILLS_PREFIX, skillDirectory, skillDirectoryNameOf } from "../skills/skill-paths.js";
import { foldedSkillName } from "../skills/skill-name.js";
import { skillDocumentPatterns } from "../skills/skill-document-patterns.js";
import { assertWithinDocumentLimits, assertWithinLevelCounts, type DocumentLimits } from "./document-limits.js";

const LEVEL_SCAN_CONCURRENCY = 16;

/**
 * What a write needs to know about its level (limits, PATTERN cap, case collisions) and how it
 * tells the level what it changed. Two ways: `countedLevel` reads the level's counters (issue 27:
 * O(1) of the level's size), `listedLevel` lists the level (no LevelUsage wired: tests, old wiring).
 */
export interface WriteLevelView {
  assertWithinLimits(limits: DocumentLimits, project: string, path: string, bytes: number): void;
  /** PATTERN triggers of the level's other SKILL.md files. */
  otherPatterns(): Promise<number>;
  /** Another skill folder of the level whose name folds to `name`'s. */
  caseCollision(name: string): Promise<string | undefined>;
  /** After the write: the document's new entry (undefined: deleted). */
  record(entry: PathUsage | undefined): Promise<void>;
}

/** PATTERN triggers of one stored SKILL.md (0 for anything that does not parse). */
async function storedPatterns(store: DocumentStore, tenant: string, project: string, path: string): Promise<number> {
  const name = skillDirectoryNameOf(path);
  if (!name) return 0;
  const doc = await store.get(tenant, project, path);
  return doc ? skillDocumentPatterns(name, doc.body, path) : 0;
}

const skillNames = (refs: readonly DocumentRef[]): string[] =>
  refs.map((ref) => skillDirectoryNameOf(ref.path)).filter((name): name is string => name !== undefined);

export async function listedLevel(store: DocumentStore, tenant: string, project: string, path: string): Promise<WriteLevelView> {
  const level = await store.list(tenant, project, "");
  return {
    assertWithinLimits: (limits, p, documentPath, bytes) => assertWithinDocumentLimits(limits, p, documentPath, bytes, level),
    otherPatterns: async () => {
      const others = (await store.list(tenant, project, SKILLS_PREFIX)).filter(
        (ref) => ref.path !== path && skillDirectoryNameOf(ref.path) !== undefined,
      );
      const counts = await mapWithConcurrency(others, LEVEL_SCAN_CONCURRENCY, (ref) => storedPatterns(store, tenant, project, ref.path));
      return counts.reduce((a, b) => a + b, 0);
    },
    caseCollision: async (name) => skillNames(level).find((dir) => dir !== name && foldedSkillName(dir) === foldedSkillName(name)),
    record: async () => {},
  };
}

/**
 * The level through its counters. A level never counted is listed once and seeded: every SKILL.md's
 * PATTERN triggers are taken from the level snapshot where it parsed that very ETag (`hints`, issue
 * 27), the others read. From then on a write reads one counters item and its own entry.
 */
export async function countedLevel(
  store: DocumentStore,
  usage: LevelUsage,
  tenant: string,
  project: string,
  path: string,
  hints?: LevelPatternHints,
): Promise<WriteLevelView> {
  let read = await usage.read(tenant, project, path);
  if (!read) {
    const [level, known] = await Promise.all([
      store.list(tenant, project, ""),
      hints ? hints(tenant, project).catch(() => undefined) : undefined,
    ]);
    const patterns = await mapWithConcurrency(level, LEVEL_SCAN_CONCURRENCY, async (ref) => {
      const hint = known?.get(ref.path);
      return hint !== undefined && hint.etag === ref.etag ? hint.patterns : storedPatterns(store, tenant, project, ref.path);
    });
    await usage.seed(
      tenant,
      project,
      new Map(level.map((ref, i) => [ref.path, { size: ref.size, patterns: patterns[i] ?? 0 }])),
      skillNames(level),
    );
    read = (await usage.read(tenant, project, path)) ?? { counts: { documents: 0, bytes: 0, patterns: 0 }, entry: undefined };
  }
  const { counts, entry } = read;
  return {
    assertWithinLimits: (limits, p, documentPath, bytes) => assertWithinLevelCounts(limits, p, documentPath, bytes, counts, entry?.size),
    otherPatterns: async () => counts.patterns - (entry?.patterns ?? 0),
    caseCollision: async (name) => {
      const folded = foldedSkillName(name);
      const holder = await usage.claimName(tenant, project, folded, name);
      if (holder === undefined) return undefined;
      // A claim outlives a SKILL.md deleted around the API or a PUT that was refused after claiming: heal it.
      if (await store.get(tenant, project, `${skillDirectory(holder)}/SKILL.md`)) return holder;
      await usage.forceName(tenant, project, folded, name);
      return undefined;
    },
    record: (after) => usage.record(tenant, project, path, after, entry),
  };
}

/** After a DELETE through the counters: the entry is gone, the name claim freed. */
export async function recordDeleted(
  usage: LevelUsage,
  tenant: string,
  project: string,
  path: string,
  before: PathUsage | undefined,
): Promise<void> {
  await usage.record(tenant, project, path, undefined, before);
  const name = skillDirectoryNameOf(path);
  if (name) await usage.releaseName(tenant, project, foldedSkillName(name), name);
}
