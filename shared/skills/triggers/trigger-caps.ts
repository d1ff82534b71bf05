import type { SkillScope } from "../../documents/cascade-scope.js";
import type { SkillTrigger } from "../skill-frontmatter.js";

/**
 * How many PATTERN triggers one skill and one cascade level may hold. Every pattern is compiled,
 * cached and (when its literals allow) run on every user message of every process that sees the
 * level, so one member's `_user_` level must not be able to make each turn of the instance pay
 * for thousands. Real skills use a handful. Refused at save time (422); a document that bypassed
 * the API (written to S3 directly) keeps its other triggers and loses its patterns beyond the
 * level's cap, with a warning on the Turn. RESOURCE skills ship with the service: no cap.
 */
export const MAX_PATTERN_TRIGGERS_PER_SKILL = 20;
export const MAX_PATTERN_TRIGGERS_PER_LEVEL: Readonly<Record<SkillScope, number>> = Object.freeze({
  USER: 100,
  PROJECT: 500,
  VANCE: 500,
  RESOURCE: Number.POSITIVE_INFINITY,
});

export const patternCount = (triggers: readonly SkillTrigger[] | undefined): number =>
  (triggers ?? []).reduce((n, t) => (t.type === "PATTERN" ? n + 1 : n), 0);

interface Capped {
  readonly name: string;
  readonly source: SkillScope;
  readonly triggers: readonly SkillTrigger[];
}

export interface CappedListing<T> {
  /** The listing with the over-cap skills' PATTERN triggers removed (same objects where nothing was removed). */
  readonly listing: readonly T[];
  /** Skills whose patterns were dropped, in listing order. */
  readonly dropped: readonly string[];
}

const cache = new WeakMap<readonly object[], CappedListing<object>>();

/**
 * Applies the per-level cap in listing order (the cascade's order within a level is by name, so
 * which skills keep their patterns is deterministic). Cached per listing array: the catalogue
 * hands out the same frozen array while nothing changes, and the trigger index is cached by it.
 */
export function capPatternTriggers<T extends Capped>(listing: readonly T[]): CappedListing<T> {
  const known = cache.get(listing) as CappedListing<T> | undefined;
  if (known) return known;
  const used: Partial<Record<SkillScope, number>> = {};
  const dropped: string[] = [];
  let changed = false;
  const out = listing.map((skill) => {
    const n = patternCount(skill.triggers);
    if (n === 0) return skill;
    const total = (used[skill.source] ?? 0) + n;
    if (total <= MAX_PATTERN_TRIGGERS_PER_LEVEL[skill.source] && n <= MAX_PATTERN_TRIGGERS_PER_SKILL) {
      used[skill.source] = total;
      return skill;
    }
    dropped.push(skill.name);
    changed = true;
    return Object.freeze({ ...skill, triggers: Object.freeze(skill.triggers.filter((t) => t.type !== "PATTERN")) });
  });
  const result: CappedListing<T> = { listing: changed ? Object.freeze(out) : listing, dropped: Object.freeze(dropped) };
  cache.set(listing, result as CappedListing<object>);
  return result;
}
