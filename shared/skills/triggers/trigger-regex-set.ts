import type { RE2Set } from "re2js";
import { re2jsLibrary } from "../../lazy/lazy-libraries.js";

/**
 * Several trigger patterns that have no required literal, run in ONE pass of re2js's lazy DFA
 * (RE2Set, the RE2::Set of re2js) instead of one pass each. A single `RE2JS` alternation would
 * not do: it answers only "did anything match" and runs capture-aware engines; the set DFA tells
 * which patterns matched. The set is compiled from the same text with the same flags as
 * `RE2JS.compile(pattern, CASE_INSENSITIVE)`, so it answers exactly what each pattern's `test` would.
 *
 * The DFA's state cache is bounded; when it thrashes, re2js gives up on the DFA and (inside
 * RE2Set) falls back to an NFA over the whole set, which is far slower than the patterns' own
 * engines one by one. We intercept that: `match` then returns undefined and the set disables
 * itself, so the caller runs the patterns individually from then on (the pre-index cost, never
 * a wrong answer).
 */

/** Cap of each set's DFA state cache (re2js default: 8 MiB per DFA). */
const SET_DFA_MEMORY = 2 * 1024 * 1024;

const GAVE_UP: readonly number[] = Object.freeze([]);

interface SetDfa {
  matchSet(...args: unknown[]): number[] | null;
}

function isSetDfa(value: unknown): value is SetDfa {
  return typeof value === "object" && value !== null && typeof (value as Partial<SetDfa>).matchSet === "function";
}

export class TriggerRegexSet {
  private set: RE2Set | undefined;

  /** `patterns` must each compile with `RE2JS.compile(p, CASE_INSENSITIVE)`. */
  constructor(
    readonly patterns: readonly string[],
    dfaMemory = SET_DFA_MEMORY,
  ) {
    this.set = compileSet(patterns, dfaMemory);
  }

  /** False once the set could not be built or its DFA gave up; then `match` always returns undefined. */
  get usable(): boolean {
    return this.set !== undefined;
  }

  /** Indices (into `patterns`) of the patterns found in `text`, or undefined: run them one by one. */
  match(text: string): readonly number[] | undefined {
    const set = this.set;
    if (set === undefined) return undefined;
    const matched = set.match(text);
    if (matched !== GAVE_UP) return matched;
    this.set = undefined;
    return undefined;
  }
}

function compileSet(patterns: readonly string[], dfaMemory: number): RE2Set | undefined {
  if (patterns.length === 0) return undefined;
  try {
    const { RE2JS, RE2Set } = re2jsLibrary();
    const set = new RE2Set(RE2Set.UNANCHORED, RE2JS.CASE_INSENSITIVE, dfaMemory);
    for (const pattern of patterns) set.add(pattern);
    set.compile();
    // re2js 2.10 (pinned) internals: RE2Set.match returns the DFA's answer unless it is null
    // (gave up). Anything unexpected means no set, i.e. the patterns run individually.
    const dfa: unknown = (set as unknown as { dfa?: unknown }).dfa;
    if (!isSetDfa(dfa)) return undefined;
    const matchSet = dfa.matchSet.bind(dfa);
    dfa.matchSet = (...args: unknown[]) => matchSet(...args) ?? (GAVE_UP as number[]);
    return set;
  } catch {
    return undefined;
  }
}
