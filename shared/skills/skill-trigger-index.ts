import type { TriggerCandidate } from "./skill-trigger-matcher.js";
import { prepareTriggerInput, sharedTriggerPatternCache, type TriggerPatternCache } from "./skill-trigger-pattern.js";
import { CANDIDATE_EXCLUDED, CANDIDATE_FIRED } from "./trigger-candidate-marks.js";
import { KeywordTriggerIndex } from "./trigger-keyword-index.js";
import { PatternTriggerIndex, type PatternTriggerEntry } from "./trigger-pattern-index.js";

export { tokenize } from "./trigger-keyword-index.js";

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

  constructor(candidates: readonly T[], patternCache: TriggerPatternCache = sharedTriggerPatternCache) {
    this.candidates = [...candidates];
    this.triggerLists = this.candidates.map((candidate) => candidate.triggers);
    const patternEntries: PatternTriggerEntry[] = [];
    this.candidates.forEach((candidate, owner) => {
      for (const trigger of candidate.triggers) {
        if (trigger.type === "KEYWORDS") this.keywords.add(owner, trigger.keywords);
        else patternEntries.push({ owner, pattern: trigger.pattern });
      }
    });
    this.patterns = new PatternTriggerIndex(patternEntries, patternCache);
  }

  /** True when `candidates` holds the same skills (same objects, names and trigger arrays) in the same order. */
  covers(candidates: readonly TriggerCandidate[]): boolean {
    if (candidates.length !== this.candidates.length) return false;
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i] as TriggerCandidate;
      const own = this.candidates[i] as T;
      if (candidate !== own || candidate.name !== own.name || candidate.triggers !== this.triggerLists[i]) return false;
    }
    return true;
  }

  /**
   * Names of the candidates (in candidate order) that `input` triggers. `accept`, when given, is
   * asked once per candidate first: a rejected candidate is neither evaluated nor returned.
   */
  match(input: string, accept?: (candidate: T) => boolean): string[] {
    const marks = new Uint8Array(this.candidates.length);
    if (accept !== undefined) {
      this.candidates.forEach((candidate, i) => {
        if (!accept(candidate)) marks[i] = CANDIDATE_EXCLUDED;
      });
    }
    const prepared = prepareTriggerInput(capTriggerInput(input));
    this.keywords.match(prepared.lowered, marks);
    this.patterns.match(prepared, marks);
    const names: string[] = [];
    marks.forEach((mark, i) => {
      if (mark === CANDIDATE_FIRED) names.push((this.candidates[i] as T).name);
    });
    return names;
  }
}
