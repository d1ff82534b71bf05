import { LRUCache } from "lru-cache";
import { SkillTriggerIndex, type TriggerCandidate } from "./skill-trigger-index.js";
import { compileTriggerPattern, sharedTriggerPatternCache, type TriggerPatternCache } from "./skill-trigger-pattern.js";
import {
  DEFAULT_TRIGGER_TIME_LIMITS,
  realTriggerBudgetClock,
  TriggerTurnBudget,
  type TriggerBudgetClock,
  type TriggerTimeLimits,
} from "./trigger-time-budget.js";

export { tokenize } from "./trigger-keyword-index.js";

/** Indexes kept for candidate lists that arrive as fresh arrays of the same skills (see indexFor). */
export const MAX_INDEXES_BY_MEMBERS = 8;

/**
 * The auto-trigger of spec §4a: which candidate skills does a user message activate?
 *
 * - PATTERN: RE2 `find` on the lowercased input, case-insensitive (skill-trigger-pattern.ts).
 * - KEYWORDS: the lowercased input is split on `[^a-z0-9]+`, tokens shorter than 2 characters are
 *   dropped; a trigger fires when at least half of its keywords occur as whole tokens. Keywords
 *   are tokenized by the same rule, so "pull request" (or "pull-request") occurs when its tokens
 *   appear consecutively; a keyword that yields no token (e.g. "c", "ä") never occurs but still
 *   counts towards the total.
 * - A skill matches when any of its triggers fires. A pattern that does not compile (it should
 *   have been rejected at load) never fires and never throws.
 * - Only the first MAX_TRIGGER_INPUT_LENGTH characters of the message are looked at.
 *
 * Matching goes through a SkillTriggerIndex compiled once per candidate list and cached here.
 * Candidates are treated as immutable: a cached index is reused for the same skill objects with
 * the same names and trigger arrays, whatever array holds them. A frozen array (the catalogue's
 * listing) that was indexed once is trusted as it is: its members cannot change, and checking
 * a thousand skill objects on every message would cost more than matching the message does.
 */
export class SkillTriggerMatcher {
  private readonly byArray = new WeakMap<readonly TriggerCandidate[], SkillTriggerIndex>();
  // Callers such as the trigger hook filter a stable catalogue into a fresh array every turn.
  private readonly byMembers = new LRUCache<number, SkillTriggerIndex>({ max: MAX_INDEXES_BY_MEMBERS });
  private readonly trusted = new WeakSet<readonly TriggerCandidate[]>();

  constructor(
    private readonly patternCache: TriggerPatternCache = sharedTriggerPatternCache,
    /** Time limits of `triggeredWithin` (per turn). */
    readonly time: TriggerTimeLimits = DEFAULT_TRIGGER_TIME_LIMITS,
    /** Where `triggeredWithin` reads the time and yields (tests pass a fake one). */
    private readonly clock: TriggerBudgetClock = realTriggerBudgetClock,
  ) {}

  /** Names of the matching candidates, in candidate order. */
  match(candidates: readonly TriggerCandidate[], input: string): string[] {
    return this.indexFor(candidates).match(input);
  }

  /**
   * The (cached) index over `candidates`: by array identity first, then by the identities of the
   * skills in it; a list that differs in any member, name or trigger array gets a new index.
   */
  indexFor<T extends TriggerCandidate>(candidates: readonly T[]): SkillTriggerIndex<T> {
    const byArray = this.byArray.get(candidates);
    if (byArray !== undefined && (this.trusted.has(candidates) || byArray.covers(candidates))) {
      return byArray as unknown as SkillTriggerIndex<T>;
    }
    const key = membersKey(candidates);
    let index = this.byMembers.get(key);
    if (index?.covers(candidates) !== true) {
      index = new SkillTriggerIndex(candidates, this.patternCache);
      this.byMembers.set(key, index);
    }
    this.byArray.set(candidates, index);
    if (Object.isFrozen(candidates)) this.trusted.add(candidates);
    return index as unknown as SkillTriggerIndex<T>;
  }

  /**
   * The trigger filter of `triggerCandidates` plus `eligible`, then matching, in one pass over
   * positions: the part of the filter that depends on the listing alone (enabled, has triggers,
   * `eligible`) is computed once per index, so a message costs its active skills and whitelist,
   * not a look at every listed skill. Returns the triggered skills in listing order.
   *
   * `eligible` must depend on the skill alone and keep its identity (a module-level function):
   * its answers are cached per index by that identity.
   */
  triggered<T extends TriggerFilterable>(listing: readonly T[], input: string, filter: TriggerFilter<T>): T[] {
    const index = this.indexFor(listing);
    return index.matchCandidates(input, this.exclusion(index, filter));
  }

  /**
   * `triggered` under a per-turn time budget (a new TriggerTurnBudget per call, from `time`):
   * the triggered skills, and the candidates whose PATTERN triggers could not all run in time
   * (`skipped`; the caller reports them). Yields to the event loop between slices of matching.
   */
  async triggeredWithin<T extends TriggerFilterable>(
    listing: readonly T[],
    input: string,
    filter: TriggerFilter<T>,
    budget: TriggerTurnBudget = new TriggerTurnBudget(this.time, this.clock),
  ): Promise<{ triggered: T[]; skipped: T[] }> {
    if (this.byArray.get(listing) === undefined) await this.precompile(listing);
    const index = this.indexFor(listing);
    const { fired, skipped } = await index.matchCandidatesWithin(input, this.exclusion(index, filter), budget);
    return { triggered: fired, skipped };
  }

  /**
   * Compiles the listing's patterns into the cache in slices, yielding to the event loop between
   * them, so that building its index (synchronous, ~0.3 ms per uncached pattern) finds them there:
   * a new listing of hundreds of patterns (a cold instance, a level just edited) does not hold the
   * instance for the whole compilation. Not counted against the turn's matching budget: compiling
   * is bounded by the caps and is not a reason to skip a skill.
   */
  private async precompile(listing: readonly TriggerCandidate[]): Promise<void> {
    const slices = new TriggerTurnBudget({ budgetMs: Number.POSITIVE_INFINITY, sliceMs: this.time.sliceMs }, this.clock);
    for (const candidate of listing) {
      for (const trigger of candidate.triggers) {
        if (trigger.type !== "PATTERN" || this.patternCache.has(trigger.pattern)) continue;
        await slices.checkpoint();
        try {
          compileTriggerPattern(trigger.pattern, this.patternCache);
        } catch {
          // rejected at load already; the index skips it
        }
      }
    }
  }

  private exclusion<T extends TriggerFilterable>(index: SkillTriggerIndex<T>, filter: TriggerFilter<T>): (excluded: Uint8Array) => void {
    const ineligible = index.exclusionMask(eligibilityOf(filter.eligible));
    return (excluded) => {
      if (filter.allowedSkills == null) {
        excluded.set(ineligible);
      } else {
        // Whitelist: everything out, then the allowed back in as far as they are eligible.
        excluded.fill(1);
        for (const name of filter.allowedSkills) for (const at of index.positionsOf(name)) excluded[at] = ineligible[at] as number;
      }
      for (const name of filter.activeNames) for (const at of index.positionsOf(name)) excluded[at] = 1;
    };
  }
}

/** What `SkillTriggerMatcher.triggered` filters by; see `triggerCandidates` for the first two. */
export interface TriggerFilter<T extends TriggerFilterable> {
  activeNames: Iterable<string>;
  allowedSkills?: readonly string[] | null | undefined;
  /** Further conditions on the skill alone (e.g. not a spawn skill); cached per index by identity. */
  eligible?: ((skill: T) => boolean) | undefined;
}

const byListing = (skill: TriggerFilterable): boolean => skill.enabled && skill.triggers.length > 0;
const eligibility = new WeakMap<(skill: never) => boolean, (skill: never) => boolean>();

/** The listing part of the filter with `eligible` folded in, one function per `eligible`, so the index caches one mask. */
function eligibilityOf<T extends TriggerFilterable>(eligible: ((skill: T) => boolean) | undefined): (skill: T) => boolean {
  if (eligible === undefined) return byListing;
  let combined = eligibility.get(eligible) as ((skill: T) => boolean) | undefined;
  if (combined === undefined) {
    combined = (skill: T) => byListing(skill) && eligible(skill);
    eligibility.set(eligible, combined);
  }
  return combined;
}

const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;

/** A hash of the candidates' identities; collisions are caught by SkillTriggerIndex.covers. */
function membersKey(candidates: readonly TriggerCandidate[]): number {
  let hash = 0x811c9dc5 ^ candidates.length;
  for (const candidate of candidates) {
    let id = objectIds.get(candidate);
    if (id === undefined) {
      id = nextObjectId++;
      objectIds.set(candidate, id);
    }
    hash = Math.imul(hash ^ id, 0x01000193);
  }
  return hash >>> 0;
}

/** A skill as listed by the resolver, with the fields the trigger filter reads. */
export interface TriggerFilterable extends TriggerCandidate {
  readonly enabled: boolean;
}

/**
 * The candidate filter of spec §4a / §7b, applied before matching: enabled, has triggers, not
 * already active on the process, and inside the recipe whitelist (`undefined`/`null` = no
 * restriction, `[]` = lockdown).
 */
export function triggerCandidates<T extends TriggerFilterable>(
  skills: readonly T[],
  filter: { activeNames: Iterable<string>; allowedSkills?: readonly string[] | null | undefined },
): T[] {
  const active = new Set(filter.activeNames);
  const allowed = filter.allowedSkills == null ? undefined : new Set(filter.allowedSkills);
  return skills.filter(
    (skill) =>
      skill.enabled &&
      skill.triggers.length > 0 &&
      !active.has(skill.name) &&
      (allowed === undefined || allowed.has(skill.name)),
  );
}
