import { LRUCache } from "lru-cache";
import { decodeRequiredChars, encodeRequiredChars, requiredChars, type RequiredChars } from "./pattern-required-chars.js";
import {
  MAX_TRIGGER_PROGRAM_SIZE,
  compileTriggerPattern,
  triggerPatternProgramSize,
  type TriggerPatternCache,
} from "./skill-trigger-pattern.js";

/**
 * What PatternTriggerIndex needs of a pattern without required literals to leave it uncompiled
 * until a message may match it: the characters any match holds, and its program size (what
 * lazy-DFA sets are grouped by). Computing them compiles the pattern once, so like the literals
 * they are memoized per process and stored in level snapshots (pattern-literals-extras.ts).
 */
export interface UnkeyedPatternFacts {
  /** CompiledTriggerPattern.programSize. */
  readonly programSize: number;
  /** A match holds a character of each (pattern-required-chars.ts); empty when nothing is provable. */
  readonly chars: readonly RequiredChars[];
}

/** Version of the stored form: a changed analysis writes another, and facts of another version are computed again. */
const STORED_VERSION = 1;

/** Facts by pattern text; `facts` undefined: the pattern cannot be a trigger (checkTriggerPattern rejects it). */
// maxSize, not `max`: lru-cache would allocate arrays for all 50 000 entries up front (~8 ms per cold start).
const factsMemo = new LRUCache<string, { facts: UnkeyedPatternFacts | undefined }>({ maxSize: 50_000, sizeCalculation: () => 1 });

/** Facts offered by level snapshots, checked when first asked for (a turn indexes at most a level's cap of patterns). */
const offered = new Map<string, unknown>();
const MAX_OFFERED = 50_000;

/**
 * The pattern's facts, computed on first use (re2js compiles it). With a cache, the compile goes
 * through `compileTriggerPattern` and is kept there for when a message reaches the pattern.
 */
export function memoizedUnkeyedFacts(pattern: string, cache?: TriggerPatternCache): UnkeyedPatternFacts | undefined {
  let memo = factsMemo.get(pattern);
  if (memo === undefined) {
    const stored = offered.get(pattern);
    if (stored !== undefined) offered.delete(pattern);
    const facts = stored === undefined ? undefined : decodeStoredFacts(stored);
    if (facts !== undefined) memo = { facts };
    else {
      const programSize = programSizeOf(pattern, cache);
      memo = { facts: programSize === undefined ? undefined : { programSize, chars: requiredChars(pattern) } };
    }
    factsMemo.set(pattern, memo);
  }
  return memo.facts;
}

function programSizeOf(pattern: string, cache: TriggerPatternCache | undefined): number | undefined {
  if (cache === undefined) return triggerPatternProgramSize(pattern);
  try {
    return compileTriggerPattern(pattern, cache).programSize;
  } catch {
    return undefined;
  }
}

/** The stored form of the pattern's facts (`{ v, size, chars }`), or undefined for a pattern that cannot be a trigger. */
export function storedUnkeyedFacts(pattern: string): unknown {
  const facts = memoizedUnkeyedFacts(pattern);
  return facts === undefined ? undefined : { v: STORED_VERSION, size: facts.programSize, chars: facts.chars.map(encodeRequiredChars) };
}

/** Takes facts stored elsewhere (a level snapshot); anything not of the current version and shape is ignored, so the pattern is analyzed here instead. */
export function rememberUnkeyedFacts(pattern: string, stored: unknown): void {
  if (offered.size >= MAX_OFFERED) offered.clear();
  offered.set(pattern, stored);
}

function decodeStoredFacts(stored: unknown): UnkeyedPatternFacts | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { v, size, chars } = stored as { v?: unknown; size?: unknown; chars?: unknown };
  if (v !== STORED_VERSION || !Number.isInteger(size) || (size as number) < 1 || (size as number) > MAX_TRIGGER_PROGRAM_SIZE)
    return undefined;
  if (!Array.isArray(chars) || chars.length > 16) return undefined;
  const decoded = chars.map(decodeRequiredChars);
  if (decoded.some((c) => c === undefined)) return undefined;
  return { programSize: size as number, chars: decoded as RequiredChars[] };
}
