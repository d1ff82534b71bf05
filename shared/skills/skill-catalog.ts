import type { ResolvedSkill } from "./resolved-skill.js";
import type { SkillScope } from "./skill-scope.js";
import { byCodePoints, listingRelevance, rankByRelevance, roundScore } from "./relevance/listing-relevance.js";
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
  omittedRanked?: readonly { name: string; score?: number }[];
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

interface Candidate {
  name: string;
  source: SkillScope;
  description: string;
  score?: number;
}

/** Per listing array (the warm catalogue hands out the same one while nothing changed), per options key. */
const memo = new WeakMap<readonly ResolvedSkill[], Map<string, BuiltCatalog>>();
const MAX_KEYS_PER_LISTING = 64;

/**
 * The catalog of one listing for one recipe and active set, built once and then handed out
 * frozen: a steady turn pays a key lookup, not a pass over every skill.
 */
export function catalogFor(listing: readonly ResolvedSkill[], options: CatalogOptions): BuiltCatalog {
  // A ranked catalog depends on the message: not memoized (its index is, per listing).
  const ranked = rankedCatalog(listing, options);
  if (ranked !== undefined) return ranked;
  const key = JSON.stringify([options.budgetChars, options.pinned ?? [], [...options.activeNames].sort(), options.allowedSkills]);
  let byKey = memo.get(listing);
  const hit = byKey?.get(key);
  if (hit !== undefined) return hit;
  const built = deepFreeze(buildCatalog(listing, options));
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
export function buildCatalog(listing: readonly ResolvedSkill[], options: CatalogOptions): BuiltCatalog {
  return rankedCatalog(listing, options) ?? render(orderedCandidates(listing, options), budgetOf(options), 0);
}

const budgetOf = (options: CatalogOptions): number => Math.max(0, Math.min(Math.floor(options.budgetChars), MAX_CATALOG_BUDGET_CHARS));

const EMPTY_CATALOG: SkillCatalog = { entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 };

/** The fitted block: `fullFirst` leading candidates may keep their whole description. */
function render(candidates: readonly Candidate[], budget: number, fullFirst: number): BuiltCatalog {
  if (budget === 0) return { catalog: { ...EMPTY_CATALOG }, text: "" };
  const fitted = fit(candidates, budget, fullFirst);
  const entries: CatalogEntry[] = fitted.kept.map((c, i) => {
    const description = i < fitted.fullCount ? c.description : shorten(c.description, fitted.descriptionChars);
    const entry: CatalogEntry = { name: c.name, description, source: c.source, approxTokens: approxTokens(lineChars(c.name, description.length)) };
    if (c.score !== undefined) entry.score = c.score;
    return entry;
  });
  const lines = entries.length === 0 ? [] : [CATALOG_HEADER, ...entries.map((e) => `- ${e.name}: ${e.description}`)];
  if (lines.length > 0 && fitted.footer) lines.push(catalogFooter(fitted.omitted.length));
  const text = lines.join("\n");
  return {
    ...(fitted.omitted.length > 0 ? { omittedRanked: fitted.omitted.map((c) => (c.score === undefined ? { name: c.name } : { name: c.name, score: c.score })) } : {}),
    catalog: {
      entries,
      omitted: fitted.omitted.slice(0, MAX_OMITTED_NAMES).map((c) => c.name),
      omittedCount: fitted.omitted.length,
      budgetChars: budget,
      usedChars: text.length,
      approxTokens: approxTokens(text.length),
    },
    text,
  };
}

/** Whether a listed skill is a catalog candidate (the filter skill_search shares). */
export function isCatalogCandidate(
  skill: Pick<ResolvedSkill, "name" | "enabled" | "disableModelInvocation">,
  active: ReadonlySet<string>,
  allowed: ReadonlySet<string> | undefined,
): boolean {
  return skill.enabled && !skill.disableModelInvocation && !active.has(skill.name) && (allowed === undefined || allowed.has(skill.name));
}

/**
 * The catalog ranked by relevance to `options.query`, or undefined when there is no query or it
 * scores no candidate (the name-ordered catalog then, as before).
 */
function rankedCatalog(listing: readonly ResolvedSkill[], options: CatalogOptions): BuiltCatalog | undefined {
  const budget = budgetOf(options);
  if (budget === 0 || options.query === undefined || options.query.trim() === "") return undefined;
  const relevance = listingRelevance(listing);
  const active = new Set(options.activeNames);
  const allowed = options.allowedSkills === null ? undefined : new Set(options.allowedSkills);
  const pinnedNames = new Set(options.pinned ?? []);
  const isCandidate = (position: number): boolean => {
    const skill = listing[position]!;
    return relevance.positionOf.get(skill.name) === position && isCatalogCandidate(skill, active, allowed);
  };
  const scored = relevance.index
    .score(options.query, (position) => isCandidate(position) && !pinnedNames.has(listing[position]!.name))
    .map((s) => ({ position: s.index, score: roundScore(s.score) }))
    .filter((s) => s.score > 0);
  if (scored.length === 0) return undefined;
  const name = (position: number): string => listing[position]!.name;
  const ranked = rankByRelevance(scored, name, options.usage);
  const scoreOf = new Map(ranked.map((r) => [r.position, r.score]));

  const candidates: Candidate[] = [];
  const candidate = (position: number, score: number): Candidate => {
    const skill = listing[position]!;
    return { name: skill.name, source: skill.source, description: descriptionAt(listing, position), score };
  };
  for (const pinned of options.pinned ?? []) {
    const position = relevance.positionOf.get(pinned);
    if (position === undefined || !isCandidate(position) || candidates.some((c) => c.name === pinned)) continue;
    candidates.push(candidate(position, roundScore(scoreOfPinned(relevance.index, options.query, position))));
  }
  const pinnedCount = candidates.length;
  for (const r of ranked) candidates.push(candidate(r.position, r.score));
  // Unscored candidates: recently used ones first (most used first), then the rest by name.
  const unscored: RankedPosition[] = [];
  const rest: number[] = [];
  for (const position of relevance.nameOrder) {
    if (scoreOf.has(position) || pinnedNames.has(listing[position]!.name) || !isCandidate(position)) continue;
    if ((options.usage?.get(listing[position]!.name) ?? 0) > 0) unscored.push({ position, score: 0 });
    else rest.push(position);
  }
  for (const r of rankByRelevance(unscored, name, options.usage)) candidates.push(candidate(r.position, 0));
  for (const position of rest) candidates.push(candidate(position, 0));
  return render(candidates, budget, pinnedCount + Math.min(MAX_FULL_DESCRIPTIONS, ranked.length));
}

/** A pinned skill's own score (it is listed first whatever it scores, but the reader sees how it fares). */
function scoreOfPinned(index: ReturnType<typeof listingRelevance>["index"], query: string, position: number): number {
  return index.score(query, (p) => p === position)[0]?.score ?? 0;
}

/** catalogDescription per listing position, computed once per listing (a ranked turn touches every candidate). */
const descriptions = new WeakMap<readonly ResolvedSkill[], (string | undefined)[]>();

function descriptionAt(listing: readonly ResolvedSkill[], position: number): string {
  let cached = descriptions.get(listing);
  if (cached === undefined) {
    cached = new Array<string | undefined>(listing.length);
    descriptions.set(listing, cached);
  }
  return (cached[position] ??= catalogDescription(listing[position]!));
}

function orderedCandidates(listing: readonly ResolvedSkill[], options: CatalogOptions): Candidate[] {
  const active = new Set(options.activeNames);
  const allowed = options.allowedSkills === null ? undefined : new Set(options.allowedSkills);
  const byName = new Map<string, ResolvedSkill>();
  for (const skill of listing) {
    if (!skill.enabled || skill.disableModelInvocation || active.has(skill.name)) continue;
    if (allowed !== undefined && !allowed.has(skill.name)) continue;
    byName.set(skill.name, skill);
  }
  const pinned: ResolvedSkill[] = [];
  for (const name of options.pinned ?? []) {
    const skill = byName.get(name);
    if (skill === undefined) continue;
    pinned.push(skill);
    byName.delete(name);
  }
  const rest = [...byName.values()].sort((a, b) => byCodePoints(a.name, b.name));
  return [...pinned, ...rest].map((skill) => ({ name: skill.name, source: skill.source, description: catalogDescription(skill) }));
}

/** Description and when_to_use on one line, whitespace collapsed, capped before any budget applies. */
export function catalogDescription(skill: Pick<ResolvedSkill, "description" | "whenToUse">): string {
  const head = skill.description.length > MAX_CATALOG_DESCRIPTION_CHARS * 2 ? skill.description.slice(0, MAX_CATALOG_DESCRIPTION_CHARS * 2) : skill.description;
  const when = skill.whenToUse === undefined ? "" : skill.whenToUse.slice(0, MAX_CATALOG_DESCRIPTION_CHARS * 2);
  const joined = `${head} ${when}`.replace(/\s+/g, " ").trim();
  return shorten(joined, MAX_CATALOG_DESCRIPTION_CHARS);
}

/** `- name: description`, one per line after the header. */
const lineChars = (name: string, descriptionChars: number): number => 4 + name.length + descriptionChars;

interface Fitted {
  kept: Candidate[];
  omitted: Candidate[];
  /** The first `fullCount` kept entries keep their whole description. */
  fullCount: number;
  /** The common length the other descriptions are shortened to (Infinity: none is). */
  descriptionChars: number;
  /** Whether the block ends with the footer line (omitted ones, unless a tiny budget has no room for it). */
  footer: boolean;
}

/** Characters one candidate adds to the block (its newline included) with its description cut to `limit`. */
const added = (c: Candidate, limit: number): number => 1 + lineChars(c.name, Math.min(c.description.length, limit));

/** Total characters of the block: `full` leading entries whole, the rest up to `count` cut to `limit`. */
function total(candidates: readonly Candidate[], full: number, count: number, limit: number): number {
  let sum = CATALOG_HEADER.length;
  for (let i = 0; i < count; i++) sum += added(candidates[i]!, i < full ? Infinity : limit);
  return sum;
}

function fit(candidates: readonly Candidate[], budgetChars: number, fullFirst: number): Fitted {
  const longest = candidates.reduce((max, c) => Math.max(max, c.description.length), 0);
  if (total(candidates, 0, candidates.length, longest) <= budgetChars) return { kept: [...candidates], omitted: [], fullCount: 0, descriptionChars: Infinity, footer: false };
  // Something will be cut or omitted: keep room for the footer line (its count is at most every candidate)…
  const withFooter = fitWithin(candidates, budgetChars - 1 - catalogFooter(candidates.length).length, budgetChars, fullFirst, longest);
  // …unless that leaves no entry at all (a tiny budget): entries matter more than the line.
  return withFooter.kept.length > 0 ? withFooter : { ...fitWithin(candidates, budgetChars, budgetChars, fullFirst, longest), footer: false };
}

function fitWithin(candidates: readonly Candidate[], budget: number, budgetChars: number, fullFirst: number, longest: number): Fitted {
  const floor = MIN_CATALOG_DESCRIPTION_CHARS;
  // The most relevant entries whole, in order, while they fit…
  let full = 0;
  let used = CATALOG_HEADER.length;
  while (full < Math.min(fullFirst, candidates.length) && used + added(candidates[full]!, Infinity) <= budget) used += added(candidates[full++]!, Infinity);
  // …then as many entries as fit with their descriptions at the floor, pinned and relevant ones first.
  let count = full;
  while (count < candidates.length && used + added(candidates[count]!, floor) <= budget) used += added(candidates[count++]!, floor);
  if (count === 0) return { kept: [], omitted: [...candidates], fullCount: 0, descriptionChars: floor, footer: false };
  // Everything listed after all: no footer, so its room goes to the shortened descriptions.
  const all = count === candidates.length;
  const limit = commonLength(candidates, full, count, floor, longest, all ? budgetChars : budget);
  return { kept: candidates.slice(0, count), omitted: candidates.slice(count), fullCount: full, descriptionChars: limit, footer: !all };
}

/** The longest common description length the entries after the whole ones fit with (binary search). */
function commonLength(candidates: readonly Candidate[], full: number, count: number, floor: number, longest: number, budget: number): number {
  let low = floor;
  let high = Math.max(floor, longest);
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
