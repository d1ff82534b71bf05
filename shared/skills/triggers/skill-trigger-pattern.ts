import { RE2JS } from "re2js";
import { SkillsError } from "../../errors.js";

/**
 * PATTERN triggers (spec §4a): authored as Java regexes, run on every user message, so they are
 * compiled with re2js (RE2 semantics, linear in the input) instead of V8's backtracking RegExp.
 * Java-only syntax that RE2 rejects or silently reinterprets is refused with a message naming the
 * construct (../shared/SECURITY.md, "Regex triggers"). Matching is `find` on the lowercased input
 * with CASE_INSENSITIVE, like the spec's `Pattern.compile(p, CASE_INSENSITIVE).matcher(lower).find()`.
 */

export const MAX_TRIGGER_PATTERN_LENGTH = 1000;
/**
 * RE2 programs beyond ~1 000 instructions exhaust the lazy DFA on 2 KB messages and fall back to
 * the NFA (measured: 3 000 instructions → 330 ms per message). Real triggers stay far below.
 */
export const MAX_TRIGGER_PROGRAM_SIZE = 1000;
const MAX_REPEAT_COUNT = 1000;
/** Above this many required literals the prefilter costs more than it saves. */
const MAX_PREFILTER_LITERALS = 32;

/** Thrown by compileTriggerPattern; the loader should have rejected the pattern already. */
export class InvalidTriggerPattern extends SkillsError {
  readonly code = "INVALID_DOCUMENT";
  constructor(readonly pattern: string, readonly reason: string) {
    super(`Invalid trigger pattern: ${reason}`);
  }
}

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

/** Literals any match must contain (lowercase ASCII), as an AND/OR tree. */
export type RequiredLiterals =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "all"; readonly of: readonly RequiredLiterals[] }
  | { readonly kind: "any"; readonly of: readonly RequiredLiterals[] };

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
}

/** Returns why the pattern cannot be used as a trigger, or undefined when it can. */
export function checkTriggerPattern(pattern: string): string | undefined {
  const analysis = analyze(pattern);
  return "error" in analysis ? analysis.error : undefined;
}

/**
 * Non-fatal findings: constructs that compile but behave differently from what a Java author
 * probably meant. The loader may surface them as document warnings.
 */
export function triggerPatternWarnings(pattern: string): string[] {
  const warnings: string[] = [];
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(pattern) && /(?:^|[^\\])(?:\\\\)*\\[wWbB]/.test(pattern)) {
    warnings.push(
      "\\w and \\b are ASCII-only here: non-ASCII letters such as 'ä' are not word characters, so a word boundary next to them never matches",
    );
  }
  return warnings;
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
    entry = "error" in analysis ? new InvalidTriggerPattern(pattern, analysis.error) : buildCompiled(pattern, analysis.regex);
    cache.set(pattern, entry);
  }
  if (entry instanceof InvalidTriggerPattern) throw entry;
  return entry;
}

/**
 * Bounded LRU keyed by the pattern text. Patterns are pure data and compilation is a pure
 * function of the text, so entries can be shared across tenants without leaking anything but
 * timing. Map iteration order is insertion order: re-inserting on hit keeps the oldest first.
 */
export class TriggerPatternCache {
  private readonly entries = new Map<string, CompiledTriggerPattern | InvalidTriggerPattern>();
  constructor(readonly maxEntries = 2048) {}

  get size(): number {
    return this.entries.size;
  }

  get(pattern: string): CompiledTriggerPattern | InvalidTriggerPattern | undefined {
    const entry = this.entries.get(pattern);
    if (entry !== undefined) {
      this.entries.delete(pattern);
      this.entries.set(pattern, entry);
    }
    return entry;
  }

  set(pattern: string, entry: CompiledTriggerPattern | InvalidTriggerPattern): void {
    this.entries.delete(pattern);
    this.entries.set(pattern, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
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

// Java flags RE2 lacks or reads differently: U is UNICODE_CHARACTER_CLASS in Java but
// "ungreedy" in RE2; x/u/d/c do not exist in RE2.
const JAVA_ONLY_FLAGS: Readonly<Record<string, string>> = {
  U: "inline flag (?U) means Unicode character classes in Java but ungreedy matching here",
  x: "inline flag (?x) (comments mode) is not supported",
  u: "inline flag (?u) (Unicode case) is not supported; matching is already case-insensitive",
  d: "inline flag (?d) (Unix lines) is not supported",
  c: "inline flag (?c) (canonical equivalence) is not supported",
};

const JAVA_ONLY_ESCAPES: Readonly<Record<string, string>> = {
  Z: "\\Z (end before a final line terminator) is not supported; use $ or \\z",
  G: "\\G (end of previous match) is not supported",
  u: "\\uXXXX escapes are not supported; write the character itself (or \\x{XXXX})",
  v: "\\v means vertical whitespace in Java but a vertical tab here; write the characters, e.g. [\\n\\r]",
  h: "\\h (horizontal whitespace) is not supported; use [ \\t]",
  H: "\\H is not supported; use [^ \\t]",
  V: "\\V is not supported; use [^\\n\\r]",
  R: "\\R (line break) is not supported; use \\n",
  X: "\\X (grapheme cluster) is not supported",
  e: "\\e (escape character) is not supported; use \\x1b",
  c: "\\c (control character) escapes are not supported; use \\x..",
  N: "\\N{name} escapes are not supported; write the character itself",
  "0": "octal escapes (\\0…) are not supported; write the character itself (or \\x{..})",
};

/**
 * One left-to-right scan that understands escapes, `\Q…\E` quoting and character classes, so
 * `\(?=` or `[(?=]` are not mistaken for lookahead. Returns a message for the first construct
 * RE2 cannot honour, or undefined.
 */
function findUnsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  let classStart = -1;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return undefined; // trailing backslash: the compiler reports it
      if (next === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        if (end < 0) return undefined;
        i = end + 2;
        continue;
      }
      if (next >= "1" && next <= "9") {
        return `backreference \\${next} is not supported (RE2 matches in linear time and has no backreferences)`;
      }
      if (next === "k" && pattern[i + 2] === "<") {
        return "named backreference \\k<name> is not supported (RE2 has no backreferences)";
      }
      if (next === "p" || next === "P") {
        const name = propertyName(pattern, i + 2);
        if (name !== undefined && !isKnownProperty(name.text)) {
          return `character property \\${next}{${name.text}} is not supported (Java names such as Alpha, javaLowerCase or IsLatin do not exist in RE2); use a Unicode category or script such as \\p{L}, \\p{Lu}, \\p{Greek}, or a class such as [a-z]`;
        }
        i = name === undefined ? i + 2 : name.end;
        continue;
      }
      if (next === "b" && pattern[i + 2] === "{") {
        return "\\b{…} (grapheme boundary) is not supported";
      }
      const javaOnly = JAVA_ONLY_ESCAPES[next];
      if (javaOnly !== undefined) return javaOnly;
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === "]" && i > classStart) {
        inClass = false;
      } else if (ch === "[") {
        return pattern[i + 1] === ":"
          ? "POSIX class [[:name:]] means different things in Java and RE2; use [a-z], \\d, \\s or \\p{L}"
          : "nested character class (Java class union) is not supported; escape a literal bracket as \\[";
      } else if (ch === "&" && pattern[i + 1] === "&") {
        return "character class intersection && (e.g. [a-z&&[^aeiou]]) is not supported; list the characters instead";
      }
      i += 1;
      continue;
    }
    if (ch === "[") {
      const posixLookalike = /^\[:\^?[a-z]+:\]/.exec(pattern.slice(i, i + 16));
      if (posixLookalike !== null) {
        return `${posixLookalike[0]} is a set of the characters between the brackets, not a POSIX class; use [a-z], \\d, \\s or \\p{L}`;
      }
      inClass = true;
      // `]` right after `[` or `[^` is a literal, not the end of the class
      classStart = pattern[i + 1] === "^" ? i + 2 : i + 1;
      i += 1;
      continue;
    }
    if (ch === "(" && pattern[i + 1] === "?") {
      const group = groupProblem(pattern, i + 2);
      if (group !== undefined) return group;
      i += 2;
      continue;
    }
    if (ch === "{") {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat !== null) {
        const counts = [repeat[1], repeat[2]].filter((c): c is string => c !== undefined && c !== "").map(Number);
        if (counts.some((c) => c > MAX_REPEAT_COUNT)) {
          return `repeat count ${repeat[0]} is above ${MAX_REPEAT_COUNT}`;
        }
        i += repeat[0].length;
        if (pattern[i] === "+") return `possessive quantifier ${repeat[0]}+ is not supported; drop the trailing +`;
        continue;
      }
    }
    if ((ch === "*" || ch === "+" || ch === "?") && pattern[i + 1] === "+") {
      return `possessive quantifier ${ch}+ is not supported; drop the trailing +`;
    }
    i += 1;
  }
  return undefined;
}

function propertyName(pattern: string, at: number): { text: string; end: number } | undefined {
  if (pattern[at] === "{") {
    const close = pattern.indexOf("}", at + 1);
    return close < 0 ? undefined : { text: pattern.slice(at + 1, close), end: close + 1 };
  }
  const single = pattern[at];
  return single === undefined ? undefined : { text: single, end: at + 1 };
}

function isKnownProperty(name: string): boolean {
  try {
    RE2JS.compile(`\\p{${name}}`);
    return true;
  } catch {
    return false;
  }
}

/** Inspects what follows `(?`. */
function groupProblem(pattern: string, at: number): string | undefined {
  const rest = pattern.slice(at, at + 3);
  if (rest.startsWith("=")) return "lookahead (?=…) is not supported";
  if (rest.startsWith("!")) return "negative lookahead (?!…) is not supported";
  if (rest.startsWith("<=")) return "lookbehind (?<=…) is not supported";
  if (rest.startsWith("<!")) return "negative lookbehind (?<!…) is not supported";
  if (rest.startsWith(">")) return "atomic group (?>…) is not supported";
  if (rest.startsWith("#")) return "comment group (?#…) is not supported";
  const flags = /^[A-Za-z-]*/.exec(pattern.slice(at, at + 16))?.[0] ?? "";
  for (const flag of flags) {
    const problem = JAVA_ONLY_FLAGS[flag];
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function buildCompiled(pattern: string, regex: RE2JS): CompiledTriggerPattern {
  const prefilter = requiredLiterals(pattern);
  const findUnfiltered = (input: TriggerInput): boolean => regex.test(input.lowered);
  return {
    pattern,
    prefilter,
    programSize: regex.programSize(),
    findUnfiltered,
    find: (input) => (prefilter === undefined || mayMatch(prefilter, input.haystack)) && findUnfiltered(input),
  };
}

function mayMatch(node: RequiredLiterals, haystack: string): boolean {
  switch (node.kind) {
    case "literal":
      return haystack.includes(node.text);
    case "all":
      return node.of.every((child) => mayMatch(child, haystack));
    case "any":
      return node.of.some((child) => mayMatch(child, haystack));
  }
}

/** Shape of re2js's internal prefilter (re2js 2.10, pinned): EXACT = 1, AND = 2, OR = 3. */
interface Re2Prefilter {
  type: number;
  str: string;
  subs: Re2Prefilter[];
}

/**
 * re2js derives required literals from its syntax tree but switches the prefilter off for
 * case-folded literals, i.e. for every CASE_INSENSITIVE pattern. Compiling the same text
 * without the flag yields the same tree with exact literals; any case-insensitive match must
 * contain text that case-folds to each required literal. Lowercased, ASCII-only literals
 * checked against `haystack` are therefore sound; non-ASCII literals (whose fold orbits are
 * irregular: σ/ς/Σ, µ/μ, …) are dropped. The internal shape is validated defensively: anything
 * unexpected means no prefilter, never a wrong skip.
 */
function requiredLiterals(pattern: string): RequiredLiterals | undefined {
  let raw: unknown;
  try {
    raw = (RE2JS.compile(pattern).re2() as { prefilter?: unknown }).prefilter;
  } catch {
    return undefined;
  }
  const budget = { literals: 0 };
  const converted = convertPrefilter(raw, budget, 0);
  return budget.literals > MAX_PREFILTER_LITERALS ? undefined : converted;
}

function convertPrefilter(raw: unknown, budget: { literals: number }, depth: number): RequiredLiterals | undefined {
  if (depth > 32 || typeof raw !== "object" || raw === null) return undefined;
  const node = raw as Partial<Re2Prefilter>;
  if (node.type === 1 && typeof node.str === "string") {
    // eslint-disable-next-line no-control-regex
    if (node.str.length === 0 || /[^\x00-\x7f]/.test(node.str)) return undefined;
    budget.literals += 1;
    return { kind: "literal", text: node.str.toLowerCase() };
  }
  if (!Array.isArray(node.subs)) return undefined;
  const children = node.subs.map((sub) => convertPrefilter(sub, budget, depth + 1));
  if (node.type === 2) {
    // Dropping a requirement from a conjunction keeps it sound.
    const kept = children.filter((child): child is RequiredLiterals => child !== undefined);
    if (kept.length === 0) return undefined;
    return kept.length === 1 ? kept[0] : { kind: "all", of: kept };
  }
  if (node.type === 3) {
    // One unprovable alternative makes the whole disjunction unprovable.
    if (children.length === 0 || children.some((child) => child === undefined)) return undefined;
    return { kind: "any", of: children as RequiredLiterals[] };
  }
  return undefined;
}
