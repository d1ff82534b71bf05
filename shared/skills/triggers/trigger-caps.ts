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

/** A plain loop: a cold turn counts the triggers of every listed skill before its JIT warms up. */
export function patternCount(triggers: readonly SkillTrigger[] | undefined): number {
  if (triggers == null) return 0;
  let n = 0;
  for (let i = 0; i < triggers.length; i++) if ((triggers[i] as SkillTrigger).type === "PATTERN") n += 1;
  return n;
}

interface Capped {
  readonly name: string;
  readonly source: SkillScope;
  readonly triggers: readonly SkillTrigger[];
}

/**
 * Which skills of a listing lose their PATTERN triggers. The skills themselves are left as they
 * are: the trigger index skips the dropped patterns by position (`patternsOff`), the match detail
 * by skill (`patternsDropped`). Copying each over-cap skill without its patterns cost a cold
 * 10 000-skill turn ~6 000 copies that lived as long as the listing.
 */
export interface CappedListing<T> {
  /** Skills whose patterns were dropped, in listing order. */
  readonly dropped: readonly string[];
  /**
   * One byte per listing position, 1 where the skill's PATTERN triggers are dropped; undefined
   * when none is. Shared with the trigger index built from it: never modified.
   */
  readonly patternsOff: Uint8Array | undefined;
  /** Whether `skill`, one of the listing's (a listing holds each skill once), lost its PATTERN triggers. */
  patternsDropped(skill: T): boolean;
}

class CappedPatterns<T> implements CappedListing<T> {
  private droppedSkills: Set<T> | undefined;

  constructor(
    private readonly listing: readonly T[],
    readonly dropped: readonly string[],
    readonly patternsOff: Uint8Array | undefined,
  ) {}

  patternsDropped(skill: T): boolean {
    const off = this.patternsOff;
    if (off === undefined) return false;
    // Asked only for the skills a message matched; built on the first of them, once per listing.
    if (this.droppedSkills === undefined) {
      this.droppedSkills = new Set();
      for (let at = 0; at < off.length; at++) if (off[at] === 1) this.droppedSkills.add(this.listing[at] as T);
    }
    return this.droppedSkills.has(skill);
  }
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
  let patternsOff: Uint8Array | undefined;
  for (let at = 0; at < listing.length; at++) {
    const skill = listing[at] as T;
    const n = patternCount(skill.triggers);
    if (n === 0) continue;
    const total = (used[skill.source] ?? 0) + n;
    if (total <= MAX_PATTERN_TRIGGERS_PER_LEVEL[skill.source] && n <= MAX_PATTERN_TRIGGERS_PER_SKILL) {
      used[skill.source] = total;
      continue;
    }
    dropped.push(skill.name);
    (patternsOff ??= new Uint8Array(listing.length))[at] = 1;
  }
  const result = new CappedPatterns(listing, Object.freeze(dropped), patternsOff);
  cache.set(listing, result as CappedListing<object>);
  return result;
}
