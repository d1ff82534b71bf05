import { LRUCache } from "lru-cache";
import type { RE2JS } from "re2js";
import { re2jsLibrary } from "../../lazy/lazy-libraries.js";
import { InvalidTriggerPattern } from "../skill-errors.js";
import { MAX_REPEAT_COUNT, findUnsupportedConstruct } from "./pattern-dialect.js";
import { mayMatch, requiredLiterals, type RequiredLiterals } from "./pattern-prefilter.js";

/**
 * PATTERN triggers (spec §4a): authored as Java regexes, run on every user message, so they are
 * compiled with re2js (RE2 semantics, linear in the input) instead of V8's backtracking RegExp.
 * Java-only syntax that RE2 rejects or silently reinterprets is refused with a message naming the
 * construct (pattern-dialect.ts; ../shared/SECURITY.md, "Regex triggers"). Matching is `find` on the lowercased input
 * with CASE_INSENSITIVE, like the spec's `Pattern.compile(p, CASE_INSENSITIVE).matcher(lower).find()`.
 */

export const MAX_TRIGGER_PATTERN_LENGTH = 1000;
/**
 * RE2 programs beyond ~1 000 instructions exhaust the lazy DFA on 2 KB messages and fall back to
 * the NFA (measured: 3 000 instructions → 330 ms per message). Real triggers stay far below.
 */
export const MAX_TRIGGER_PROGRAM_SIZE = 1000;
/**
 * State-cache budget of each compiled pattern's lazy DFA, in re2js's own accounting (its
 * default is 8 MiB per pattern, and a pattern's DFA grows with every message it sees). Past it
 * the DFA clears its cache and rebuilds, or gives up for the NFA: slower, never bigger.
 */
export const TRIGGER_PATTERN_DFA_BYTES = 128 * 1024;
/** The process-wide compiled-pattern cache's budget: entries are weighed by what they may hold. */
export const TRIGGER_PATTERN_CACHE_BYTES = 64 * 1024 * 1024;

/** A user message prepared once per turn and shared by every pattern and keyword trigger. */
export interface TriggerInput {
  /** `input.toLowerCase()`: what the regex runs on (spec §4a). */
  readonly lowered: string;
  /**
   * `lowered` with the only non-ASCII characters that case-fold to an ASCII letter (ſ → s;
   * the Kelvin sign is already `k` after toLowerCase) replaced, so an ASCII literal `includes`
   * check cannot miss a case-insensitive match. Same length as `lowered`.
   */
  readonly haystack: string;
}

export function prepareTriggerInput(input: string): TriggerInput {
  const lowered = input.toLowerCase();
  return { lowered, haystack: lowered.includes("ſ") ? lowered.replaceAll("ſ", "s") : lowered };
}

export interface CompiledTriggerPattern {
  readonly pattern: string;
  /** Undefined when no required literal could be proven; then every message runs the regex. */
  readonly prefilter: RequiredLiterals | undefined;
  /** Instructions of the compiled RE2 program (a proxy for its DFA's appetite). */
  readonly programSize: number;
  /** Cheap check first; the regex only runs when the prefilter cannot rule a match out. */
  find(input: TriggerInput): boolean;
  /** The regex alone (for tests that pin prefilter soundness, and diagnostics). */
  findUnfiltered(input: TriggerInput): boolean;
  /** Where the first match in `input.lowered` is (UTF-16 positions), or undefined; for the activation ledger only. */
  span(input: TriggerInput): { start: number; end: number } | undefined;
  /** The lazy DFA's budget and what it holds now, in re2js's accounting; undefined when it cannot be read. */
  dfaMemory(): { budget: number; used: number } | undefined;
}

/** Returns why the pattern cannot be used as a trigger, or undefined when it can. */
export function checkTriggerPattern(pattern: string): string | undefined {
  const analysis = analyze(pattern);
  return "error" in analysis ? analysis.error : undefined;
}

/** The instructions of the pattern's program (CompiledTriggerPattern.programSize), or undefined when checkTriggerPattern rejects it. */
export function triggerPatternProgramSize(pattern: string): number | undefined {
  const analysis = analyze(pattern);
  return "error" in analysis ? undefined : analysis.regex.programSize();
}

/**
 * Compiles (or returns the cached) pattern. Throws InvalidTriggerPattern when
 * checkTriggerPattern would reject it; the failure is cached too, so a bad pattern that slipped
 * past validation costs one analysis, not one per message.
 */
export function compileTriggerPattern(pattern: string, cache: TriggerPatternCache = sharedTriggerPatternCache): CompiledTriggerPattern {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    const analysis = analyze(pattern);
    entry = "error" in analysis ? new InvalidTriggerPattern(pattern, analysis.error) : buildCompiled(pattern, analysis.regex);
    cache.set(pattern, entry);
  }
  if (entry instanceof InvalidTriggerPattern) throw entry;
  return entry;
}

/**
 * LRU keyed by the pattern text, bounded in bytes, not entries: each compiled pattern weighs
 * its DFA budget plus its program and text, so the cache holds at most `maxBytes` of DFA state
 * whatever the patterns see (a refused pattern weighs its text). Patterns are pure data and
 * compilation is a pure function of the text, so entries can be shared across tenants without
 * leaking anything but timing.
 */
export class TriggerPatternCache extends LRUCache<string, CompiledTriggerPattern | InvalidTriggerPattern> {
  constructor(maxBytes = TRIGGER_PATTERN_CACHE_BYTES) {
    super({ maxSize: maxBytes, sizeCalculation: weightOf });
  }
}

const weightOf = (entry: CompiledTriggerPattern | InvalidTriggerPattern, pattern: string): number =>
  entry instanceof InvalidTriggerPattern
    ? 2 * pattern.length + 256
    : TRIGGER_PATTERN_DFA_BYTES + 64 * entry.programSize + 2 * pattern.length;

/** Process-wide cache used when no cache is passed. */
export const sharedTriggerPatternCache = new TriggerPatternCache();

// Probes of unrelated character classes: a pattern that finds all of them fires on any message.
const ANY_MESSAGE_PROBES = ["\u0001", " ", "0", "\u{1F600}"];

function analyze(pattern: string): { error: string } | { regex: RE2JS } {
  if (pattern.length > MAX_TRIGGER_PATTERN_LENGTH) {
    return { error: `pattern is ${pattern.length} characters long; at most ${MAX_TRIGGER_PATTERN_LENGTH} are allowed` };
  }
  if (pattern.length === 0) return { error: "empty pattern matches every message" };
  const unsupported = findUnsupportedConstruct(pattern);
  if (unsupported !== undefined) return { error: unsupported };
  let regex: RE2JS;
  try {
    const { RE2JS: Re2 } = re2jsLibrary();
    regex = Re2.compile(pattern, Re2.CASE_INSENSITIVE);
  } catch (error) {
    return { error: describeCompileError(error) };
  }
  const size = regex.programSize();
  if (size > MAX_TRIGGER_PROGRAM_SIZE) {
    return {
      error: `pattern too complex: it compiles to ${size} instructions, at most ${MAX_TRIGGER_PROGRAM_SIZE} are allowed (lower the repeat counts)`,
    };
  }
  if (regex.test("")) return { error: "pattern matches the empty string, so it would fire on every message" };
  if (ANY_MESSAGE_PROBES.every((probe) => regex.test(probe))) {
    return { error: "pattern matches any character, so it would fire on every message" };
  }
  return { regex };
}

function describeCompileError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const detail = message.replace(/^error parsing regexp: /, "");
  if (detail.startsWith("invalid repeat count")) {
    return `invalid pattern: ${detail} (a count is at most ${MAX_REPEAT_COUNT}, min ≤ max, and nested repeats multiply)`;
  }
  return `invalid pattern: ${detail}`;
}

/** re2js 2.10 (pinned; test/unit/re2js-contract.test.ts): `re2Input.dfa` is the lazy DFA, its budget three fields. */
interface LazyDfaBudget {
  maxMem: number;
  stateBudget: number;
  memBudget: number;
}

export function lazyDfaOf(regex: RE2JS): LazyDfaBudget | undefined {
  const dfa = (regex as unknown as { re2Input?: { dfa?: Partial<LazyDfaBudget> } }).re2Input?.dfa;
  return dfa !== undefined && typeof dfa.stateBudget === "number" && typeof dfa.memBudget === "number" ? (dfa as LazyDfaBudget) : undefined;
}

function capDfaMemory(regex: RE2JS, bytes: number): void {
  const dfa = lazyDfaOf(regex);
  if (dfa === undefined) return;
  dfa.maxMem = bytes;
  dfa.stateBudget = bytes;
  dfa.memBudget = Math.min(dfa.memBudget, bytes);
}

function buildCompiled(pattern: string, regex: RE2JS): CompiledTriggerPattern {
  capDfaMemory(regex, TRIGGER_PATTERN_DFA_BYTES);
  const prefilter = requiredLiterals(pattern);
  const findUnfiltered = (input: TriggerInput): boolean => regex.test(input.lowered);
  return {
    pattern,
    prefilter,
    programSize: regex.programSize(),
    findUnfiltered,
    span: (input) => {
      const matcher = regex.matcher(input.lowered);
      return matcher.find() ? { start: matcher.start(), end: matcher.end() } : undefined;
    },
    dfaMemory: () => {
      const dfa = lazyDfaOf(regex);
      return dfa === undefined ? undefined : { budget: dfa.stateBudget, used: dfa.stateBudget - dfa.memBudget };
    },
    find: (input) => (prefilter === undefined || mayMatch(prefilter, input.haystack)) && findUnfiltered(input),
  };
}
