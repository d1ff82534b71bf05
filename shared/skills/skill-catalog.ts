import type { ListedSkill } from "./resolved-skill.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import { byCodePoints, listingRelevance, matchedPositions, rankByRelevance, roundScore } from "./relevance/listing-relevance.js";
import type { RankedPosition } from "./relevance/listing-relevance.js";

/**
 * The skill catalog of a turn (API.md "Catalog and model activation"): the skills the model may
 * activate now with `skill_activate`, by name and description, within a character budget.
 *
 * Candidates: listed (visible through the cascade and enabled), within the process whitelist,
 * not active, not `disable-model-invocation`. `user-invocable: false` skills are candidates:
 * that flag keeps a skill away from users, not from the model.
 *
 * Order (deterministic): the recipe's `catalogPinned` names in recipe order, then the others —
 * by relevance to the turn's messages (`query`, issue 26: relevance/relevance-index.ts), ties by
 * recent usage, then by name — or, when the messages carry no signal (no candidate scores), by
 * name in code-point order as before. A relevance-ranked catalog's entries carry `score`.
 *
 * Budget (`usedChars` counts the rendered block, header, footer and newlines included, in UTF-16
 * code units): when everything does not fit, a ranked catalog first keeps the full description
 * of its most relevant entries (pinned ones and the MAX_FULL_DESCRIPTIONS best scored, in order,
 * as long as they fit); the other descriptions are shortened, all to one common length and
 * never below MIN_CATALOG_DESCRIPTION_CHARS (cut ones end in "…"); when even that does not fit,
 * whole entries move to `omitted` from the end (pinned ones last), and the block's last line
 * says how many more skills `skill_search` reaches. Nothing is dropped without being named. A
 * budget of 0 turns it off. The same listing, options, query and usage give the same bytes.
 */
export interface CatalogEntry {
  name: string;
  /** The description, `when_to_use` appended, on one line, possibly shortened. */
  description: string;
  source: SkillScope;
  /** Characters of its catalog line / 4, rounded up. */
  approxTokens: number;
  /** Relevance to the turn's messages (3 decimals); only in a relevance-ranked catalog. */
  score?: number;
}

export interface SkillCatalog {
  entries: CatalogEntry[];
  /** Candidates that did not fit the budget, in catalog order; the first MAX_OMITTED_NAMES of them. */
  omitted: string[];
  /** How many did not fit, also those past MAX_OMITTED_NAMES: nothing is cut silently. */
  omittedCount: number;
  budgetChars: number;
  usedChars: number;
  /** usedChars / 4, rounded up: a rough token count, the same for every model. */
  approxTokens: number;
}

export interface CatalogOptions {
  budgetChars: number;
  pinned?: readonly string[] | undefined;
  activeNames: readonly string[];
  /** The process's allowedSkillsOverride: null = no restriction. */
  allowedSkills: readonly string[] | null;
  /** What the model is about to answer (the turn's pending messages and user message): ranks by relevance when it scores any candidate. */
  query?: string | undefined;
  /** Recent activations by skill name (usage counters): breaks ties of relevance. */
  usage?: ReadonlyMap<string, number> | undefined;
}

/** A built catalog and the text the system prompt carries for it ("" when it has no entries). */
export interface BuiltCatalog {
  catalog: SkillCatalog;
  text: string;
  /**
   * Every omitted candidate in catalog order, with its score in a ranked catalog (the ledger's
   * `explain=all` gives each its rank and score; `catalog.omitted` names only the first 500).
   */
  omittedRanked?: () => readonly { name: string; score?: number }[];
}

export const DEFAULT_CATALOG_BUDGET_CHARS = 8_000;
/** What a recipe may ask for at most; a catalog is an index, not a second skill section. */
export const MAX_CATALOG_BUDGET_CHARS = 100_000;
/** Descriptions are shortened down to this many characters before a whole entry is omitted. */
export const MIN_CATALOG_DESCRIPTION_CHARS = 80;
/**
 * Names listed in `omitted` at most: 10 000 skills of 64-character names would otherwise make the
 * Turn larger than its 300 KB cap (turn-errors.ts); `omittedCount` still counts every one.
 */
export const MAX_OMITTED_NAMES = 500;
/** A description (with when_to_use) is cut to this before anything else: the spec's description maximum. */
export const MAX_CATALOG_DESCRIPTION_CHARS = 1_024;

export const CATALOG_HEADER = 'Available skills — activate one with skill_activate {"name":"<name>"}:';
/** Full descriptions a ranked catalog keeps for its best scored entries before anything of theirs is shortened. */
export const MAX_FULL_DESCRIPTIONS = 5;
/** The block's last line when candidates were omitted: they exist, and skill_search reaches them. */
export const catalogFooter = (omittedCount: number): string =>
  `+${omittedCount} more skill${omittedCount === 1 ? "" : "s"} not listed: find them with skill_search {"query":"…"}`;
const ELLIPSIS = "…";

export const approxTokens = (chars: number): number => Math.ceil(chars / 4);

/** The candidates in catalog order, read by position (a ranked 10 000-skill catalog builds no object per candidate). */
interface Candidates {
  readonly length: number;
  name(i: number): string;
  description(i: number): string;
  source(i: number): SkillScope;
  /** Relevance; undefined when the order is not by relevance. */
  score(i: number): number | undefined;
}

/** Per listing array (the warm catalogue hands out the same one while nothing changed), per options key. */
const memo = new WeakMap<readonly ListedSkill[], Map<string, BuiltCatalog>>();
const MAX_KEYS_PER_LISTING = 64;

/**
 * The catalog of one listing for one recipe and active set, built once and then handed out
 * frozen: a steady turn pays a key lookup, not a pass over every skill.
 */
export function catalogFor(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog {
  // A ranked catalog depends on the message: not memoized (its index is, per listing).
  const ranked = rankedCatalog(listing, options);
  if (ranked !== undefined) return ranked;
  return nameOrdered(listing, options);
}

/** The catalog in name order (no query, or no signal in it), memoized per listing and options. */
function nameOrdered(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog {
  const key = JSON.stringify([options.budgetChars, options.pinned ?? [], [...options.activeNames].sort(), options.allowedSkills]);
  let byKey = memo.get(listing);
  const hit = byKey?.get(key);
  if (hit !== undefined) return hit;
  const built = deepFreeze(render(orderedCandidates(listing, options), budgetOf(options), 0));
  if (byKey === undefined) {
    byKey = new Map();
    memo.set(listing, byKey);
  }
  // Oldest key out first: active sets change turn by turn, the listing stays.
  if (byKey.size >= MAX_KEYS_PER_LISTING) byKey.delete(byKey.keys().next().value as string);
  byKey.set(key, built);
  return built;
}

/** Builds without the memo (tests, benches). */
export function buildCatalog(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog {
  return rankedCatalog(listing, options) ?? render(orderedCandidates(listing, options), budgetOf(options), 0);
}

const budgetOf = (options: CatalogOptions): number => Math.max(0, Math.min(Math.floor(options.budgetChars), MAX_CATALOG_BUDGET_CHARS));

const EMPTY_CATALOG: SkillCatalog = { entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 };

/** The fitted block: `fullFirst` leading candidates may keep their whole description. */
function render(candidates: Candidates, budget: number, fullFirst: number): BuiltCatalog {
  if (budget === 0) return { catalog: { ...EMPTY_CATALOG }, text: "" };
  const fitted = fit(candidates, budget, fullFirst);
  const entries: CatalogEntry[] = [];
  for (let i = 0; i < fitted.count; i++) {
    const full = candidates.description(i);
    const description = i < fitted.fullCount ? full : shorten(full, fitted.descriptionChars);
    const name = candidates.name(i);
    const entry: CatalogEntry = {
      name,
      description,
      source: candidates.source(i),
      approxTokens: approxTokens(lineChars(name.length, description.length)),
    };
    const score = candidates.score(i);
    if (score !== undefined) entry.score = score;
    entries.push(entry);
  }
  const omittedCount = candidates.length - fitted.count;
  const lines = entries.length === 0 ? [] : [CATALOG_HEADER, ...entries.map((e) => `- ${e.name}: ${e.description}`)];
  if (lines.length > 0 && fitted.footer) lines.push(catalogFooter(omittedCount));
  const text = lines.join("\n");
  const omitted: string[] = [];
  for (let i = fitted.count; i < Math.min(candidates.length, fitted.count + MAX_OMITTED_NAMES); i++) omitted.push(candidates.name(i));
  return {
    ...(omittedCount > 0
      ? {
          omittedRanked: () =>
            Array.from({ length: omittedCount }, (_, k) => {
              const score = candidates.score(fitted.count + k);
              return score === undefined ? { name: candidates.name(fitted.count + k) } : { name: candidates.name(fitted.count + k), score };
            }),
        }
      : {}),
    catalog: { entries, omitted, omittedCount, budgetChars: budget, usedChars: text.length, approxTokens: approxTokens(text.length) },
    text,
  };
}

/** Whether a listed skill is a catalog candidate (the filter skill_search shares). */
export function isCatalogCandidate(
  skill: Pick<ListedSkill, "name" | "enabled" | "disableModelInvocation">,
  active: ReadonlySet<string>,
  allowed: ReadonlySet<string> | undefined,
): boolean {
  return skill.enabled && !skill.disableModelInvocation && !active.has(skill.name) && (allowed === undefined || allowed.has(skill.name));
}

/**
 * The catalog ranked by relevance to `options.query`, or undefined when there is no query or it
 * scores no candidate (the name-ordered catalog then, as before).
 */
function rankedCatalog(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog | undefined {
  const budget = budgetOf(options);
  if (budget === 0 || options.query === undefined || options.query.trim() === "") return undefined;
  const relevance = listingRelevance(listing);
  const active = new Set(options.activeNames);
  const allowed = options.allowedSkills === null ? undefined : new Set(options.allowedSkills);
  const pinnedNames = new Set(options.pinned ?? []);
  const isCandidate = (position: number): boolean =>
    relevance.nameRank[position] !== -1 && isCatalogCandidate(listing[position]!, active, allowed);
  const scored = matchedPositions(
    relevance,
    options.query,
    (position) => isCandidate(position) && !pinnedNames.has(listing[position]!.name),
  );
  if (scored === undefined) return undefined;
  const name = (position: number): string => listing[position]!.name;
  const ranked = rankByRelevance(scored, name, options.usage, relevance.nameRank);
  const matched = new Set(ranked.map((r) => r.position));

  const order: number[] = [];
  const scores: number[] = [];
  for (const pinned of options.pinned ?? []) {
    const position = relevance.positionOf.get(pinned);
    if (position === undefined || !isCandidate(position) || order.includes(position)) continue;
    order.push(position);
    scores.push(roundScore(scoreOfPinned(relevance.index, options.query, position)));
  }
  const pinnedCount = order.length;
  for (const r of ranked) {
    order.push(r.position);
    scores.push(r.score);
  }
  // Unscored candidates: recently used ones first (most used first), then the rest by name.
  const unscored: RankedPosition[] = [];
  const rest: number[] = [];
  const usage = options.usage;
  for (const position of relevance.nameOrder) {
    if (matched.has(position)) continue;
    const skill = listing[position]!;
    if (!isCatalogCandidate(skill, active, allowed) || pinnedNames.has(skill.name)) continue;
    if (usage !== undefined && (usage.get(skill.name) ?? 0) > 0) unscored.push({ position, score: 0 });
    else rest.push(position);
  }
  for (const r of rankByRelevance(unscored, name, usage, relevance.nameRank)) order.push(r.position);
  for (const position of rest) order.push(position);
  const descriptionOf = descriptionsOf(listing);
  const candidates: Candidates = {
    length: order.length,
    name: (i) => listing[order[i]!]!.name,
    description: (i) => descriptionOf(order[i]!),
    source: (i) => listing[order[i]!]!.source,
    score: (i) => scores[i] ?? 0,
  };
  return render(candidates, budget, pinnedCount + Math.min(MAX_FULL_DESCRIPTIONS, ranked.length));
}

/** A pinned skill's own score (it is listed first whatever it scores, but the reader sees how it fares). */
function scoreOfPinned(index: ReturnType<typeof listingRelevance>["index"], query: string, position: number): number {
  return index.score(query, (p) => p === position)[0]?.score ?? 0;
}

/** catalogDescription per listing position, computed once per listing (a ranked turn may touch every candidate). */
const descriptions = new WeakMap<readonly ListedSkill[], (string | undefined)[]>();

function descriptionsOf(listing: readonly ListedSkill[]): (position: number) => string {
  let cached = descriptions.get(listing);
  if (cached === undefined) {
    cached = new Array<string | undefined>(listing.length);
    descriptions.set(listing, cached);
  }
  const memo = cached;
  return (position) => (memo[position] ??= catalogDescription(listing[position]!));
}

function orderedCandidates(listing: readonly ListedSkill[], options: CatalogOptions): Candidates {
  const active = new Set(options.activeNames);
  const allowed = options.allowedSkills === null ? undefined : new Set(options.allowedSkills);
  const byName = new Map<string, ListedSkill>();
  for (const skill of listing) {
    if (!skill.enabled || skill.disableModelInvocation || active.has(skill.name)) continue;
    if (allowed !== undefined && !allowed.has(skill.name)) continue;
    byName.set(skill.name, skill);
  }
  const pinned: ListedSkill[] = [];
  for (const name of options.pinned ?? []) {
    const skill = byName.get(name);
    if (skill === undefined) continue;
    pinned.push(skill);
    byName.delete(name);
  }
  const rest = [...byName.values()].sort((a, b) => byCodePoints(a.name, b.name));
  const ordered = [...pinned, ...rest];
  const descriptionOf = descriptionsOf(listing);
  const positionOf = new Map(listing.map((skill, i) => [skill, i] as const));
  return {
    length: ordered.length,
    name: (i) => ordered[i]!.name,
    description: (i) => descriptionOf(positionOf.get(ordered[i]!)!),
    source: (i) => ordered[i]!.source,
    score: () => undefined,
  };
}

/** Description and when_to_use on one line, whitespace collapsed, capped before any budget applies. */
export function catalogDescription(skill: Pick<ListedSkill, "description" | "whenToUse">): string {
  const head =
    skill.description.length > MAX_CATALOG_DESCRIPTION_CHARS * 2
      ? skill.description.slice(0, MAX_CATALOG_DESCRIPTION_CHARS * 2)
      : skill.description;
  const when = skill.whenToUse === undefined ? "" : skill.whenToUse.slice(0, MAX_CATALOG_DESCRIPTION_CHARS * 2);
  const joined = `${head} ${when}`.replace(/\s+/g, " ").trim();
  return shorten(joined, MAX_CATALOG_DESCRIPTION_CHARS);
}

/** `- name: description`, one per line after the header. */
const lineChars = (nameChars: number, descriptionChars: number): number => 4 + nameChars + descriptionChars;

interface Fitted {
  /** The first `count` candidates are listed, the others omitted. */
  count: number;
  /** The first `fullCount` listed entries keep their whole description. */
  fullCount: number;
  /** The common length the other descriptions are shortened to (Infinity: none is). */
  descriptionChars: number;
  /** Whether the block ends with the footer line (omitted ones, unless a tiny budget has no room for it). */
  footer: boolean;
}

/** Characters candidate i adds to the block (its newline included) with its description cut to `limit`. */
const added = (c: Candidates, i: number, limit: number): number =>
  1 + lineChars(c.name(i).length, Math.min(c.description(i).length, limit));

/** Total characters of the block: `full` leading entries whole, the rest up to `count` cut to `limit`. */
function total(candidates: Candidates, full: number, count: number, limit: number): number {
  let sum = CATALOG_HEADER.length;
  for (let i = 0; i < count; i++) sum += added(candidates, i, i < full ? Infinity : limit);
  return sum;
}

/** Whether every candidate fits with its whole description (stops counting once over). */
function fitsWhole(candidates: Candidates, budget: number): boolean {
  let sum = CATALOG_HEADER.length;
  for (let i = 0; i < candidates.length; i++) {
    sum += added(candidates, i, Infinity);
    if (sum > budget) return false;
  }
  return true;
}

function fit(candidates: Candidates, budgetChars: number, fullFirst: number): Fitted {
  if (fitsWhole(candidates, budgetChars)) return { count: candidates.length, fullCount: 0, descriptionChars: Infinity, footer: false };
  // Something will be cut or omitted: keep room for the footer line (its count is at most every candidate)…
  const withFooter = fitWithin(candidates, budgetChars - 1 - catalogFooter(candidates.length).length, budgetChars, fullFirst);
  // …unless that leaves no entry at all (a tiny budget): entries matter more than the line.
  return withFooter.count > 0 ? withFooter : { ...fitWithin(candidates, budgetChars, budgetChars, fullFirst), footer: false };
}

function fitWithin(candidates: Candidates, budget: number, budgetChars: number, fullFirst: number): Fitted {
  const floor = MIN_CATALOG_DESCRIPTION_CHARS;
  // The most relevant entries whole, in order, while they fit…
  let full = 0;
  let used = CATALOG_HEADER.length;
  while (full < Math.min(fullFirst, candidates.length) && used + added(candidates, full, Infinity) <= budget)
    used += added(candidates, full++, Infinity);
  // …then as many entries as fit with their descriptions at the floor, pinned and relevant ones first.
  let count = full;
  while (count < candidates.length && used + added(candidates, count, floor) <= budget) used += added(candidates, count++, floor);
  if (count === 0) return { count: 0, fullCount: 0, descriptionChars: floor, footer: false };
  // Everything listed after all: no footer, so its room goes to the shortened descriptions.
  const all = count === candidates.length;
  const limit = commonLength(candidates, full, count, floor, all ? budgetChars : budget);
  return { count, fullCount: full, descriptionChars: limit, footer: !all };
}

/** The longest common description length the entries after the whole ones fit with (binary search). */
function commonLength(candidates: Candidates, full: number, count: number, floor: number, budget: number): number {
  let longest = floor;
  for (let i = full; i < count; i++) longest = Math.max(longest, candidates.description(i).length);
  let low = floor;
  let high = longest;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (total(candidates, full, count, mid) <= budget) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Cut to `limit` characters, the last one "…"; never splits a surrogate pair. */
function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, Math.max(0, limit - 1));
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}${ELLIPSIS}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
