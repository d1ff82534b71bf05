import { LRUCache } from "lru-cache";
import { RE2JS } from "re2js";
import { InvalidTriggerPattern } from "../skill-errors.js";
import { MAX_REPEAT_COUNT, findUnsupportedConstruct } from "./pattern-dialect.js";
import { mayMatch, requiredLiterals, type RequiredLiterals } from "./pattern-prefilter.js";
import { isRe2jsDfa, sharedDfaMemoryLedger, type DfaMemoryLedger, type Re2jsDfa } from "./trigger-dfa-memory.js";

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
  /** Estimated heap of the compiled pattern without its DFA states (what the cache counts). */
  readonly footprintBytes: number;
  /** Drops the DFA states (the cache evicted the pattern); it still answers, rebuilding them. */
  release(): void;
}

/** Returns why the pattern cannot be used as a trigger, or undefined when it can. */
export function checkTriggerPattern(pattern: string): string | undefined {
  const analysis = analyze(pattern);
  return "error" in analysis ? analysis.error : undefined;
}

/**
 * Compiles (or returns the cached) pattern. Throws InvalidTriggerPattern when
 * checkTriggerPattern would reject it; the failure is cached too, so a bad pattern that slipped
 * past validation costs one analysis, not one per message.
 */
export function compileTriggerPattern(
  pattern: string,
  cache: TriggerPatternCache = sharedTriggerPatternCache,
): CompiledTriggerPattern {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    const analysis = analyze(pattern);
    entry = "error" in analysis ? new InvalidTriggerPattern(pattern, analysis.error) : buildCompiled(pattern, analysis.regex, cache.ledger);
    cache.set(pattern, entry);
  }
  if (entry instanceof InvalidTriggerPattern) throw entry;
  return entry;
}

/**
 * Estimated heap of a compiled pattern without DFA states: measured (Node 20, re2js 2.10) at
 * 9–14 KB for programs of 20–90 instructions and 34 KB for 380 (program, one-pass tables,
 * prefilter, syntax kept by re2js), so a fixed part plus a part per instruction, rounded up.
 */
export function compiledPatternFootprint(pattern: string, programSize: number): number {
  return 12 * 1024 + 64 * programSize + 2 * pattern.length;
}

/** A rejected pattern: the error object and its message. */
const REJECTED_FOOTPRINT = 1024;

export const DEFAULT_TRIGGER_CACHE_BYTES = 32 * 1024 * 1024;

export interface TriggerPatternCacheOptions {
  /** Byte budget of the compiled patterns (footprintBytes each; DFA states are the ledger's). */
  maxBytes?: number;
  /** Where the patterns' DFAs are capped and counted (default: the process-wide ledger). */
  ledger?: DfaMemoryLedger;
}

/**
 * LRU keyed by the pattern text, bounded by bytes (the estimated footprint of each compiled
 * pattern), not by a count: a long, complex pattern takes the room of several small ones. The
 * DFA states the patterns grow while matching are bounded by the DfaMemoryLedger (per DFA and in
 * total); an evicted pattern's states are dropped at once. Patterns are pure data and compilation
 * is a pure function of the text, so entries can be shared across tenants without leaking anything
 * but timing.
 */
export class TriggerPatternCache extends LRUCache<string, CompiledTriggerPattern | InvalidTriggerPattern> {
  readonly ledger: DfaMemoryLedger;

  constructor(options: TriggerPatternCacheOptions = {}) {
    super({
      maxSize: options.maxBytes ?? DEFAULT_TRIGGER_CACHE_BYTES,
      sizeCalculation: (entry) => (entry instanceof InvalidTriggerPattern ? REJECTED_FOOTPRINT : entry.footprintBytes),
      dispose: (entry, _key, reason) => {
        // Replaced or evicted: the pattern may live on in an index for a while; its DFA states go now.
        if (reason !== "set" && !(entry instanceof InvalidTriggerPattern)) entry.release();
      },
    });
    this.ledger = options.ledger ?? sharedDfaMemoryLedger;
  }
}

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
    regex = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return { error: describeCompileError(error) };
  }
  const size = regex.programSize();
  if (size > MAX_TRIGGER_PROGRAM_SIZE) {
    return { error: `pattern too complex: it compiles to ${size} instructions, at most ${MAX_TRIGGER_PROGRAM_SIZE} are allowed (lower the repeat counts)` };
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

function buildCompiled(pattern: string, regex: RE2JS, ledger: DfaMemoryLedger): CompiledTriggerPattern {
  const prefilter = requiredLiterals(pattern);
  const programSize = regex.programSize();
  const dfa = lazyDfaOf(regex);
  if (dfa !== undefined) ledger.adopt(dfa);
  const findUnfiltered = (input: TriggerInput): boolean => {
    const found = regex.test(input.lowered);
    if (dfa !== undefined) ledger.record(dfa);
    return found;
  };
  return {
    pattern,
    prefilter,
    programSize,
    footprintBytes: compiledPatternFootprint(pattern, programSize),
    findUnfiltered,
    find: (input) => (prefilter === undefined || mayMatch(prefilter, input.haystack)) && findUnfiltered(input),
    release: () => {
      if (dfa !== undefined) ledger.forget(dfa);
    },
  };
}

/**
 * re2js 2.10 (pinned) internals: `RE2JS#re2()` is the RE2 whose getter `dfa` creates the lazy DFA
 * `test` runs (with an 8 MiB budget). Created here, before the first run, so its budget can be
 * lowered; anything unexpected leaves it uncapped (trigger-re2js-contract.test.ts fails first).
 */
function lazyDfaOf(regex: RE2JS): Re2jsDfa | undefined {
  try {
    const re2: unknown = (regex as unknown as { re2(): unknown }).re2();
    const dfa: unknown = (re2 as { dfa?: unknown }).dfa;
    return isRe2jsDfa(dfa) ? dfa : undefined;
  } catch {
    return undefined;
  }
}
