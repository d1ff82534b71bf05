import { LRUCache } from "lru-cache";
import { re2jsLibrary } from "../../lazy/lazy-libraries.js";

/**
 * The cheap check in front of a trigger regex: literals any match must contain, so most messages
 * are ruled out with `includes` (or one Aho–Corasick pass over all patterns, PatternTriggerIndex)
 * instead of a regex run. The literals come from re2js's own prefilter, an internal of re2js;
 * trigger-re2js-contract.test.ts pins every part of it read here.
 */

/** Above this many required literals the prefilter costs more than it saves. */
const MAX_PREFILTER_LITERALS = 32;

/** Literals any match must contain (lowercase ASCII), as an AND/OR tree. */
export type RequiredLiterals =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "all"; readonly of: readonly RequiredLiterals[] }
  | { readonly kind: "any"; readonly of: readonly RequiredLiterals[] };

/** Whether `haystack` (TriggerInput.haystack) can hold a match: false only when a required literal is missing. */
export function mayMatch(node: RequiredLiterals, haystack: string): boolean {
  switch (node.kind) {
    case "literal":
      return haystack.includes(node.text);
    case "all":
      return node.of.every((child) => mayMatch(child, haystack));
    case "any":
      return node.of.some((child) => mayMatch(child, haystack));
  }
}

/** The fields read of a node of re2js's internal prefilter tree (re2js 2.10, pinned). */
interface Re2Prefilter {
  type: number;
  str: string;
  subs: Re2Prefilter[];
}

/** re2js's `Prefilter.Type` codes (NONE = 0 never reaches us: re2js stores null instead). */
export const RE2JS_PREFILTER_TYPE = { EXACT: 1, AND: 2, OR: 3 } as const;

/** re2js's prefilter tree of `pattern` compiled without flags, as it is (null when there is none). Throws when the pattern does not compile. */
export function re2jsPrefilterOf(pattern: string): unknown {
  return (re2jsLibrary().RE2JS.compile(pattern).re2() as { prefilter?: unknown }).prefilter;
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
export function requiredLiterals(pattern: string): RequiredLiterals | undefined {
  let raw: unknown;
  try {
    raw = re2jsPrefilterOf(pattern);
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
  if (node.type === RE2JS_PREFILTER_TYPE.EXACT && typeof node.str === "string") {
    // eslint-disable-next-line no-control-regex
    if (node.str.length === 0 || /[^\x00-\x7f]/.test(node.str)) return undefined;
    budget.literals += 1;
    return { kind: "literal", text: node.str.toLowerCase() };
  }
  if (!Array.isArray(node.subs)) return undefined;
  const children = node.subs.map((sub) => convertPrefilter(sub, budget, depth + 1));
  if (node.type === RE2JS_PREFILTER_TYPE.AND) {
    // Dropping a requirement from a conjunction keeps it sound.
    const kept = children.filter((child): child is RequiredLiterals => child !== undefined);
    if (kept.length === 0) return undefined;
    return kept.length === 1 ? kept[0] : { kind: "all", of: kept };
  }
  if (node.type === RE2JS_PREFILTER_TYPE.OR) {
    // One unprovable alternative makes the whole disjunction unprovable.
    if (children.length === 0 || children.some((child) => child === undefined)) return undefined;
    return { kind: "any", of: children as RequiredLiterals[] };
  }
  return undefined;
}

/**
 * Required literals by pattern text, computed once per process (they need a full compile of the
 * pattern): a warm instance builds a new trigger index whenever a level changes, and a cold one
 * can be handed them by its level snapshot (`rememberRequiredLiterals`), issue 27.
 */
// Bounded in entries through maxSize, not `max`: lru-cache allocates arrays for `max` entries up
// front, ~8 ms of every cold start for 50 000.
const literalsMemo = new LRUCache<string, { literals: RequiredLiterals | undefined }>({ maxSize: 50_000, sizeCalculation: () => 1 });

/**
 * Literals offered by level snapshots, checked when first asked for: a level stores every pattern
 * of its skills, but a turn indexes at most the level's cap of them (trigger-caps.ts), and checking
 * 6 700 trees up front was ~30 ms of a cold turn at 10 000 skills. Bounded like the memo.
 */
const offered = new Map<string, unknown>();

export function memoizedRequiredLiterals(pattern: string): RequiredLiterals | undefined {
  let memo = literalsMemo.get(pattern);
  if (memo === undefined) {
    memo = offeredLiterals(pattern) ?? { literals: requiredLiterals(pattern) };
    literalsMemo.set(pattern, memo);
  }
  return memo.literals;
}

/** Takes literals computed elsewhere (a level snapshot); a tree of the wrong shape is ignored, so the pattern is analyzed here instead. */
export function rememberRequiredLiterals(pattern: string, literals: unknown): void {
  if (offered.size >= MAX_OFFERED) offered.clear();
  offered.set(pattern, literals);
}

const MAX_OFFERED = 50_000;

function offeredLiterals(pattern: string): { literals: RequiredLiterals | undefined } | undefined {
  const stored = offered.get(pattern);
  if (stored === undefined) return undefined;
  offered.delete(pattern);
  if (stored === null) return { literals: undefined };
  return isRequiredLiterals(stored, 0) ? { literals: stored } : undefined;
}

function isRequiredLiterals(value: unknown, depth: number): value is RequiredLiterals {
  if (depth > 32 || typeof value !== "object" || value === null) return false;
  const node = value as { kind?: unknown; text?: unknown; of?: unknown };
  // A literal as requiredLiterals makes it (lowercase ASCII): anything else could rule out a message that matches.
  if (node.kind === "literal")
    return (
      // eslint-disable-next-line no-control-regex
      typeof node.text === "string" && node.text.length > 0 && !/[^\x00-\x7f]/.test(node.text) && node.text === node.text.toLowerCase()
    );
  return (
    (node.kind === "all" || node.kind === "any") &&
    Array.isArray(node.of) &&
    node.of.length > 0 &&
    node.of.every((child) => isRequiredLiterals(child, depth + 1))
  );
}
