import type { ListedSkill, ResolvedSkill } from "./resolved-skill.js";
import type { SkillScope } from "./skill-scope.js";

/**
 * The skill catalog of a turn (API.md "Catalog and model activation"): the skills the model may
 * activate now with `skill_activate`, by name and description, within a character budget.
 *
 * Candidates: listed (visible through the cascade and enabled), within the process whitelist,
 * not active, not `disable-model-invocation`. `user-invocable: false` skills are candidates:
 * that flag keeps a skill away from users, not from the model.
 *
 * Order (deterministic): the recipe's `catalogPinned` names in recipe order, then the others by
 * name in code-point order. Budget (`usedChars` counts the rendered block, header and newlines
 * included, in UTF-16 code units): when everything does not fit, the longest descriptions are
 * shortened first, all to one common length and never below MIN_CATALOG_DESCRIPTION_CHARS (cut
 * ones end in "…"); when even that does not fit, whole entries move to `omitted` from the end
 * (pinned ones last). Nothing is dropped without being named. A budget of 0 turns it off.
 */
export interface CatalogEntry {
  name: string;
  /** The description, `when_to_use` appended, on one line, possibly shortened. */
  description: string;
  source: SkillScope;
  /** Characters of its catalog line / 4, rounded up. */
  approxTokens: number;
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
}

/** A built catalog and the text the system prompt carries for it ("" when it has no entries). */
export interface BuiltCatalog {
  catalog: SkillCatalog;
  text: string;
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
const ELLIPSIS = "…";

export const approxTokens = (chars: number): number => Math.ceil(chars / 4);

interface Candidate {
  name: string;
  source: SkillScope;
  description: string;
}

/** Per listing array (the warm catalogue hands out the same one while nothing changed), per options key. */
const memo = new WeakMap<readonly ListedSkill[], Map<string, BuiltCatalog>>();
const MAX_KEYS_PER_LISTING = 64;

/**
 * The catalog of one listing for one recipe and active set, built once and then handed out
 * frozen: a steady turn pays a key lookup, not a pass over every skill.
 */
export function catalogFor(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog {
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
export function buildCatalog(listing: readonly ListedSkill[], options: CatalogOptions): BuiltCatalog {
  const budget = Math.max(0, Math.min(Math.floor(options.budgetChars), MAX_CATALOG_BUDGET_CHARS));
  if (budget === 0) return { catalog: { entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 }, text: "" };
  const candidates = orderedCandidates(listing, options);
  const fitted = fit(candidates, budget);
  const entries: CatalogEntry[] = fitted.kept.map((c) => {
    const description = shorten(c.description, fitted.descriptionChars);
    return { name: c.name, description, source: c.source, approxTokens: approxTokens(lineChars(c.name, description.length)) };
  });
  const text = entries.length === 0 ? "" : [CATALOG_HEADER, ...entries.map((e) => `- ${e.name}: ${e.description}`)].join("\n");
  return {
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

function orderedCandidates(listing: readonly ListedSkill[], options: CatalogOptions): Candidate[] {
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
  const rest = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
  /** The common length descriptions are shortened to (Infinity: none is). */
  descriptionChars: number;
}

/** Total characters of the block with descriptions cut to `limit`. */
function total(candidates: readonly Candidate[], count: number, limit: number): number {
  let sum = CATALOG_HEADER.length;
  for (let i = 0; i < count; i++) {
    const c = candidates[i]!;
    sum += 1 + lineChars(c.name, Math.min(c.description.length, limit));
  }
  return sum;
}

function fit(candidates: readonly Candidate[], budget: number): Fitted {
  const longest = candidates.reduce((max, c) => Math.max(max, c.description.length), 0);
  if (total(candidates, candidates.length, longest) <= budget) return { kept: [...candidates], omitted: [], descriptionChars: Infinity };
  // Keep as many entries as fit with every description at the floor, pinned ones first.
  let count = candidates.length;
  const floor = MIN_CATALOG_DESCRIPTION_CHARS;
  // Descending from the end, one entry at a time, by subtracting its line: O(n), not O(n²).
  let atFloor = total(candidates, count, floor);
  while (count > 0 && atFloor > budget) {
    const c = candidates[count - 1]!;
    atFloor -= 1 + lineChars(c.name, Math.min(c.description.length, floor));
    count--;
  }
  if (count === 0) return { kept: [], omitted: [...candidates], descriptionChars: floor };
  // Then the longest common description length the kept entries fit with (binary search).
  let low = floor;
  let high = longest;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (total(candidates, count, mid) <= budget) low = mid;
    else high = mid - 1;
  }
  return { kept: candidates.slice(0, count), omitted: candidates.slice(count), descriptionChars: low };
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
