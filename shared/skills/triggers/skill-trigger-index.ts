import type { SkillTrigger } from "../skill-frontmatter.js";
import { prepareTriggerInput, sharedTriggerPatternCache, type TriggerInput, type TriggerPatternCache } from "./skill-trigger-pattern.js";
import { CANDIDATE_EXCLUDED, CANDIDATE_FIRED, CANDIDATE_OPEN, type CandidateMarks } from "./trigger-candidate-marks.js";
import { KeywordTriggerIndex } from "./trigger-keyword-index.js";
import type { TriggerTimeBudget } from "./trigger-time-budget.js";
import { PatternTriggerIndex, type PatternTriggerEntry } from "./trigger-pattern-index.js";

export { tokenize } from "./trigger-keyword-index.js";

/** What the trigger engine needs of a skill; ResolvedSkill satisfies it. */
export interface TriggerCandidate {
  readonly name: string;
  readonly triggers: readonly SkillTrigger[];
}

/**
 * Only the first 16 Ki UTF-16 code units of a message are matched (keywords and patterns alike),
 * so a hostile multi-megabyte message costs what a 16 KB one does. Triggers decide whether a
 * skill is relevant to what the user is asking; that is said early in a message. For a longer
 * message the cut is the end of the text as far as `$` and `\z` are concerned.
 */
export const MAX_TRIGGER_INPUT_LENGTH = 16_384;
/** How far the cut may move back so that it does not split a word (or a surrogate pair). */
const MAX_CUT_BACKOFF = 64;
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;

/**
 * The part of a message that triggers look at: at most MAX_TRIGGER_INPUT_LENGTH code units, cut
 * before a word that straddles the limit (so its first half cannot pass for a keyword) unless the
 * word is very long, and never inside a surrogate pair.
 */
export function capTriggerInput(input: string): string {
  if (input.length <= MAX_TRIGGER_INPUT_LENGTH) return input;
  let end = MAX_TRIGGER_INPUT_LENGTH;
  while (end > MAX_TRIGGER_INPUT_LENGTH - MAX_CUT_BACKOFF && splitsWord(input, end)) end -= 1;
  if (end === MAX_TRIGGER_INPUT_LENGTH - MAX_CUT_BACKOFF) end = MAX_TRIGGER_INPUT_LENGTH;
  if (isHighSurrogate(input.charCodeAt(end - 1))) end -= 1;
  return input.slice(0, end);
}

function splitsWord(input: string, end: number): boolean {
  const before = input.charCodeAt(end - 1);
  if (isHighSurrogate(before)) return true;
  return WORD_CHARACTER.test(input.charAt(end - 1)) && WORD_CHARACTER.test(input.charAt(end));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The triggers of a fixed list of candidate skills, compiled once so that matching a message is
 * cheap, with exactly the answers of evaluating every trigger of every candidate in turn (spec
 * §4a, see SkillTriggerMatcher):
 *
 * - KEYWORDS: an inverted index token → postings (KeywordTriggerIndex), checked first as the
 *   cheapest; a candidate that fires there runs none of its regexes.
 * - PATTERN: one Aho–Corasick pass for every required literal, regexes only where the literals
 *   allow, literal-less patterns together in lazy-DFA sets (PatternTriggerIndex).
 * - Only the first MAX_TRIGGER_INPUT_LENGTH characters of a message are looked at.
 *
 * The index keeps its own snapshot of the candidate list; later changes to the array are not seen
 * (`covers` tells whether a list is still the one indexed).
 */
export class SkillTriggerIndex<T extends TriggerCandidate = TriggerCandidate> {
  readonly candidates: readonly T[];
  private readonly triggerLists: readonly (readonly unknown[])[];
  private readonly keywords = new KeywordTriggerIndex();
  private readonly patterns: PatternTriggerIndex;
  /** 1 where every trigger of the candidate is a pattern left out (`patternsOff`); undefined when none is. */
  private readonly bare: Uint8Array | undefined;
  private positions: Map<string, number[]> | undefined;
  /** Per-listing exclusion masks (see exclusionMask), by predicate. */
  private readonly masks = new WeakMap<(candidate: T) => boolean, Uint8Array>();
  private scratchMarks: Uint8Array | undefined;
  private lastInput: string | undefined;
  private lastPrepared: TriggerInput | undefined;
  private marking = false;

  /**
   * `patternsOff`: one byte per candidate, 1 where the candidate's PATTERN triggers are left out
   * (the per-level caps, trigger-caps.ts); the index then answers as if those candidates had
   * their other triggers only. It is kept, not copied: it must not change afterwards.
   */
  constructor(
    candidates: readonly T[],
    patternCache: TriggerPatternCache = sharedTriggerPatternCache,
    readonly patternsOff?: Uint8Array,
  ) {
    this.candidates = [...candidates];
    this.triggerLists = this.candidates.map((candidate) => candidate.triggers);
    const patternEntries: PatternTriggerEntry[] = [];
    for (let owner = 0; owner < this.candidates.length; owner++) {
      const off = patternsOff?.[owner] === 1;
      let kept = 0;
      for (const trigger of (this.candidates[owner] as T).triggers) {
        if (trigger.type === "KEYWORDS") this.keywords.add(owner, trigger.keywords);
        else if (off) continue;
        else patternEntries.push({ owner, pattern: trigger.pattern });
        kept += 1;
      }
      if (off && kept === 0) (this.bare ??= new Uint8Array(this.candidates.length))[owner] = 1;
    }
    this.patterns = new PatternTriggerIndex(patternEntries, patternCache);
  }

  /**
   * True when `candidates` holds the same skills (same objects, names and trigger arrays) in the
   * same order, and the same patterns are left out.
   */
  covers(candidates: readonly TriggerCandidate[], patternsOff?: Uint8Array): boolean {
    if (!this.leavesOut(patternsOff)) return false;
    if (candidates.length !== this.candidates.length) return false;
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i] as TriggerCandidate;
      const own = this.candidates[i] as T;
      if (candidate !== own || candidate.name !== own.name || candidate.triggers !== this.triggerLists[i]) return false;
    }
    return true;
  }

  /** True when the index leaves out the PATTERN triggers of the positions `patternsOff` names, and no others. */
  leavesOut(patternsOff: Uint8Array | undefined): boolean {
    const own = this.patternsOff;
    if (own === patternsOff) return true;
    if (own === undefined || patternsOff === undefined || own.length !== patternsOff.length) return false;
    for (let i = 0; i < own.length; i++) if (own[i] !== patternsOff[i]) return false;
    return true;
  }

  /** Whether the candidate at `position` has a trigger the index matches (patterns left out do not count). */
  hasTriggers(position: number): boolean {
    return (this.triggerLists[position]?.length ?? 0) > 0 && this.bare?.[position] !== 1;
  }

  /**
   * Names of the candidates (in candidate order) that `input` triggers. `accept`, when given, is
   * asked once per candidate first: a rejected candidate is neither evaluated nor returned.
   */
  match(input: string, accept?: (candidate: T) => boolean): string[] {
    const names: string[] = [];
    this.withMarks((marks) => {
      if (accept !== undefined) {
        this.candidates.forEach((candidate, i) => {
          if (!accept(candidate)) marks[i] = CANDIDATE_EXCLUDED;
        });
      }
      this.evaluate(input, marks);
      for (let i = 0; i < marks.length; i++) if (marks[i] === CANDIDATE_FIRED) names.push((this.candidates[i] as T).name);
    });
    return names;
  }

  /**
   * The candidates (in candidate order) that `input` triggers. `exclude`, when given, is called
   * first with one byte per candidate, all 0; it sets the byte of each candidate to leave out to 1
   * (those are neither evaluated nor returned). The per-turn form of `match` with `accept`: a
   * caller that knows the candidates to leave out by position (exclusionMask, positionsOf) need not
   * touch every candidate object on every message.
   */
  matchCandidates(input: string, exclude?: (excluded: Uint8Array) => void, budget?: TriggerTimeBudget): T[] {
    const fired: T[] = [];
    this.withMarks((marks) => {
      if (exclude !== undefined) {
        exclude(marks);
        for (let i = 0; i < marks.length; i++) if (marks[i] !== CANDIDATE_OPEN) marks[i] = CANDIDATE_EXCLUDED;
      }
      this.evaluate(input, marks, budget);
      for (let i = 0; i < marks.length; i++) if (marks[i] === CANDIDATE_FIRED) fired.push(this.candidates[i] as T);
    });
    return fired;
  }

  /** Positions of the candidates called `name` (a listing has each name once; a hand-made list may repeat one). */
  positionsOf(name: string): readonly number[] {
    if (this.positions === undefined) {
      this.positions = new Map();
      this.candidates.forEach((candidate, i) => {
        const known = (this.positions as Map<string, number[]>).get(candidate.name);
        if (known === undefined) (this.positions as Map<string, number[]>).set(candidate.name, [i]);
        else known.push(i);
      });
    }
    return this.positions.get(name) ?? NO_POSITIONS;
  }

  /**
   * One byte per candidate: 1 where `predicate` does NOT hold (an exclusion mask, to copy into the
   * array `matchCandidates` hands to `exclude`), and where every trigger of the candidate is a
   * pattern left out (`patternsOff`: as indexed, it has none). Computed once per index and
   * predicate (by function identity), so `predicate` must depend on the candidate alone; do not
   * modify the result.
   */
  exclusionMask(predicate: (candidate: T) => boolean): Uint8Array {
    let mask = this.masks.get(predicate);
    if (mask === undefined) {
      mask = new Uint8Array(this.candidates.length);
      for (let i = 0; i < mask.length; i++) mask[i] = this.bare?.[i] !== 1 && predicate(this.candidates[i] as T) ? 0 : 1;
      this.masks.set(predicate, mask);
    }
    return mask;
  }

  /**
   * Runs `use` with the per-message marks, all CANDIDATE_OPEN. The array is kept and reused: a
   * fresh typed array per message cost the scavenger a sweep of its off-heap store per message.
   * A call made from inside `use` (an `accept` callback matching again) gets its own array.
   */
  private withMarks(use: (marks: CandidateMarks) => void): void {
    if (this.marking) {
      use(new Uint8Array(this.candidates.length));
      return;
    }
    this.marking = true;
    try {
      const marks = (this.scratchMarks ??= new Uint8Array(this.candidates.length));
      marks.fill(CANDIDATE_OPEN);
      use(marks);
    } finally {
      this.marking = false;
    }
  }

  /** The candidate at `position` (as TriggerTimeBudget.skipped reports them). */
  candidateAt(position: number): T | undefined {
    return this.candidates[position];
  }

  private evaluate(input: string, marks: CandidateMarks, budget?: TriggerTimeBudget): void {
    // The activation ledger matches the same message a second time (skill-trigger-matcher.ts): it is prepared once.
    if (this.lastInput !== input || this.lastPrepared === undefined) {
      this.lastInput = input;
      this.lastPrepared = prepareTriggerInput(capTriggerInput(input));
    }
    const prepared = this.lastPrepared;
    this.keywords.match(prepared.lowered, marks);
    this.patterns.match(prepared, marks, budget);
  }
}

const NO_POSITIONS: readonly number[] = Object.freeze([]);
