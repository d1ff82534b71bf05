import { LRUCache } from "lru-cache";
import { SkillTriggerIndex, type TriggerCandidate } from "./skill-trigger-index.js";
import { sharedTriggerPatternCache, type TriggerPatternCache } from "./skill-trigger-pattern.js";
import type { TriggerTimeBudget } from "./trigger-time-budget.js";

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

  constructor(private readonly patternCache: TriggerPatternCache = sharedTriggerPatternCache) {}

  /** Names of the matching candidates, in candidate order. */
  match(candidates: readonly TriggerCandidate[], input: string): string[] {
    return this.indexFor(candidates).match(input);
  }

  /**
   * The (cached) index over `candidates`: by array identity first, then by the identities of the
   * skills in it; a list that differs in any member, name or trigger array gets a new index.
   * `patternsOff` (the per-level caps, trigger-caps.ts: one byte per position, 1 = its PATTERN
   * triggers are left out) is part of what an index answers for: a different one gets a new index.
   */
  indexFor<T extends TriggerCandidate>(candidates: readonly T[], patternsOff?: Uint8Array): SkillTriggerIndex<T> {
    const byArray = this.byArray.get(candidates);
    if (byArray?.leavesOut(patternsOff) === true && (this.trusted.has(candidates) || byArray.covers(candidates, patternsOff))) {
      return byArray as unknown as SkillTriggerIndex<T>;
    }
    const key = membersKey(candidates, patternsOff);
    let index = this.byMembers.get(key);
    if (index?.covers(candidates, patternsOff) !== true) {
      index = new SkillTriggerIndex(candidates, this.patternCache, patternsOff);
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
  triggered<T extends TriggerFilterable>(
    listing: readonly T[],
    input: string,
    filter: TriggerFilter<T>,
    budget?: TriggerTimeBudget,
  ): TriggeredSkills<T> {
    const index = this.indexFor(listing, filter.patternsOff);
    const ineligible = index.exclusionMask(eligibilityOf(filter.eligible));
    const fired = index.matchCandidates(
      input,
      (excluded) => {
        if (filter.allowedSkills == null) {
          excluded.set(ineligible);
        } else {
          // Whitelist: everything out, then the allowed back in as far as they are eligible.
          excluded.fill(1);
          for (const name of filter.allowedSkills) for (const at of index.positionsOf(name)) excluded[at] = ineligible[at] as number;
        }
        for (const name of filter.activeNames) for (const at of index.positionsOf(name)) excluded[at] = 1;
      },
      budget,
    );
    const skippedAt = [...(budget?.skipped ?? [])].sort((a, b) => a - b);
    const skipped: T[] = [];
    for (const at of skippedAt) {
      const candidate = index.candidateAt(at);
      if (candidate !== undefined) skipped.push(candidate);
    }
    if (filter.explain === undefined) return { fired, skipped };
    return {
      fired,
      skipped,
      ...this.explainExcluded(index, input, filter, { ineligible, fired: new Set(fired), skipped: new Set(skippedAt) }, budget),
    };
  }

  /**
   * The ledger's second pass (API.md "Explainable activation"): the candidates with triggers that
   * the filter kept out of matching (active, disabled, outside the whitelist, not eligible) are
   * matched too, so the turn can say which of them the message hit and why they did not
   * activate. It runs after the activating pass and shares its time budget, so it never takes
   * time from it; its own skips count as not evaluated. The causes are worked out by position
   * (the listing part once per index), and nothing runs when no candidate was kept out.
   */
  private explainExcluded<T extends TriggerFilterable>(
    index: SkillTriggerIndex<T>,
    input: string,
    filter: TriggerFilter<T>,
    first: { ineligible: Uint8Array; fired: ReadonlySet<T>; skipped: ReadonlySet<number> },
    budget: TriggerTimeBudget | undefined,
  ): Pick<TriggeredSkills<T>, "blocked" | "notMatched"> {
    const { ineligible } = first;
    const listing = listingCauses(index, ineligible);
    const causes = Uint8Array.from(listing);
    if (filter.allowedSkills != null) {
      for (let at = 0; at < causes.length; at++)
        if (listing[at] !== CAUSE_NO_TRIGGERS && listing[at] !== CAUSE_DISABLED) causes[at] = CAUSE_NOT_ALLOWED;
      for (const name of filter.allowedSkills) for (const at of index.positionsOf(name)) causes[at] = listing[at] as number;
    }
    for (const name of filter.activeNames)
      for (const at of index.positionsOf(name)) if (listing[at] !== CAUSE_NO_TRIGGERS) causes[at] = CAUSE_ACTIVE;

    const blocked: BlockedCandidate<T>[] = [];
    const hit = new Uint8Array(causes.length);
    if (causes.some((cause) => cause > CAUSE_NONE)) {
      const secondFired = index.matchCandidates(
        input,
        (excluded) => {
          for (let at = 0; at < excluded.length; at++) excluded[at] = (causes[at] as number) > CAUSE_NONE ? 0 : 1;
        },
        budget,
      );
      // In candidate order, as matchCandidates answers; only the fired are looked at.
      for (const candidate of secondFired) {
        for (const at of index.positionsOf(candidate.name)) {
          if (hit[at] === 1 || index.candidateAt(at) !== candidate || (causes[at] as number) <= CAUSE_NONE) continue;
          hit[at] = 1;
          blocked.push({ candidate, cause: CAUSE_NAMES[causes[at] as number] as BlockCause });
        }
      }
    }
    if (filter.explain !== "all") return { blocked };
    const notMatched: NotMatchedCandidate<T>[] = [];
    index.candidates.forEach((candidate, at) => {
      const cause = causes[at] as number;
      if (cause === CAUSE_NO_TRIGGERS || cause === CAUSE_ACTIVE || hit[at] === 1 || first.skipped.has(at) || first.fired.has(candidate))
        return;
      notMatched.push({ candidate, evaluated: !(budget?.skipped.has(at) ?? false) });
    });
    return { blocked, notMatched };
  }
}

const CAUSE_NO_TRIGGERS = 0;
const CAUSE_NONE = 1;
const CAUSE_ACTIVE = 2;
const CAUSE_DISABLED = 3;
const CAUSE_NOT_ALLOWED = 4;
const CAUSE_INELIGIBLE = 5;
const CAUSE_NAMES: readonly (BlockCause | undefined)[] = [undefined, undefined, "active", "disabled", "not-allowed", "ineligible"];
const listingCauseMemo = new WeakMap<Uint8Array, Uint8Array>();

/** Per position: no triggers, or the part of the filter that depends on the listing alone (cached with the eligibility mask). */
function listingCauses<T extends TriggerFilterable>(index: SkillTriggerIndex<T>, ineligible: Uint8Array): Uint8Array {
  let causes = listingCauseMemo.get(ineligible);
  if (causes === undefined) {
    causes = new Uint8Array(index.candidates.length);
    index.candidates.forEach((candidate, at) => {
      (causes as Uint8Array)[at] = !index.hasTriggers(at)
        ? CAUSE_NO_TRIGGERS
        : !candidate.enabled
          ? CAUSE_DISABLED
          : ineligible[at] === 1
            ? CAUSE_INELIGIBLE
            : CAUSE_NONE;
    });
    listingCauseMemo.set(ineligible, causes);
  }
  return causes;
}

/** The skills a message triggered, and those whose patterns the time budget did not let run. */
export interface TriggeredSkills<T> {
  fired: T[];
  skipped: T[];
  /** With `explain`: candidates with triggers the filter kept out whose triggers matched, and why they were kept out. */
  blocked?: BlockedCandidate<T>[];
  /** With `explain: "all"`: the other candidates with triggers, which did not match (or were not evaluated in time). */
  notMatched?: NotMatchedCandidate<T>[];
}

/** Why the filter kept a candidate out of matching: active already, disabled, outside the whitelist, or not `eligible`. */
export type BlockCause = "active" | "disabled" | "not-allowed" | "ineligible";

export interface BlockedCandidate<T> {
  candidate: T;
  cause: BlockCause;
}

export interface NotMatchedCandidate<T> {
  candidate: T;
  /** false: the time budget ran out before its patterns ran (its keywords did not match). */
  evaluated: boolean;
}

/** What `SkillTriggerMatcher.triggered` filters by; see `triggerCandidates` for the first two. */
export interface TriggerFilter<T extends TriggerFilterable> {
  activeNames: Iterable<string>;
  allowedSkills?: readonly string[] | null | undefined;
  /** Further conditions on the skill alone (e.g. not a spawn skill); cached per index by identity. */
  eligible?: ((skill: T) => boolean) | undefined;
  /**
   * `matched`: also match the candidates the filter kept out and report those that matched
   * (`blocked`); `all`: also name every other candidate with triggers (`notMatched`). Undefined:
   * the activating pass only.
   */
  explain?: "matched" | "all" | undefined;
  /**
   * One byte per listing position, 1 where the skill's PATTERN triggers do not count (the
   * per-level caps, trigger-caps.ts `patternsOff`): matched, filtered and explained as if the
   * skill had its other triggers only. Depends on the listing alone; never modified.
   */
  patternsOff?: Uint8Array | undefined;
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

/** A hash of the candidates' identities and the patterns left out; collisions are caught by SkillTriggerIndex.covers. */
function membersKey(candidates: readonly TriggerCandidate[], patternsOff: Uint8Array | undefined): number {
  let hash = 0x811c9dc5 ^ candidates.length;
  for (const candidate of candidates) {
    let id = objectIds.get(candidate);
    if (id === undefined) {
      id = nextObjectId++;
      objectIds.set(candidate, id);
    }
    hash = Math.imul(hash ^ id, 0x01000193);
  }
  if (patternsOff !== undefined)
    for (let at = 0; at < patternsOff.length; at++) if (patternsOff[at] === 1) hash = Math.imul(hash ^ ~at, 0x01000193);
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
    (skill) => skill.enabled && skill.triggers.length > 0 && !active.has(skill.name) && (allowed === undefined || allowed.has(skill.name)),
  );
}
