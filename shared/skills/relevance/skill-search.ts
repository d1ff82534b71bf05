import { InvalidRequest } from "../../errors.js";
import type { ListedSkill } from "../resolved-skill.js";
import { catalogDescription } from "../skill-catalog.js";
import type { SkillScope } from "../../documents/cascade-scope.js";
import { listingRelevance, matchedPositions, rankByRelevance } from "./listing-relevance.js";

/**
 * skill_search and `GET …/skills/search` (API.md "Catalog at scale"): the skills of a listing
 * that `accept` lets through, ranked by relevance to a query as the catalog ranks them (score,
 * then recent usage, then name), with scores above 0 only. The index is the listing's own,
 * memoized (listing-relevance.ts): a search is one walk over the postings of the query's terms.
 */
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

export interface SkillSearchResult {
  name: string;
  /** As the catalog shows it: the description and when_to_use on one line, at most 1 024 characters. */
  description: string;
  source: SkillScope;
  score: number;
}

export interface SkillSearchAnswer {
  results: SkillSearchResult[];
  /** Every skill the query scored, also those past `limit`. */
  total: number;
}

export interface SkillSearchOptions {
  limit: number;
  accept?: ((skill: ListedSkill) => boolean) | undefined;
  usage?: ReadonlyMap<string, number> | undefined;
}

export function searchSkills(listing: readonly ListedSkill[], query: string, options: SkillSearchOptions): SkillSearchAnswer {
  const relevance = listingRelevance(listing);
  const accept = options.accept;
  const scored = matchedPositions(relevance, query, (position) => accept === undefined || accept(listing[position]!)) ?? [];
  const ranked = rankByRelevance(scored, (position) => listing[position]!.name, options.usage, relevance.nameRank);
  const results = ranked.slice(0, options.limit).map(({ position, score }) => {
    const skill = listing[position]!;
    return { name: skill.name, description: catalogDescription(skill), source: skill.source, score };
  });
  return { results, total: ranked.length };
}

/** The 1-based rank of `name` for `query` among the skills `accept` lets through, or null past MAX_SEARCH_LIMIT (or unscored). */
export function searchRankOf(
  listing: readonly ListedSkill[],
  query: string,
  name: string,
  accept?: (skill: ListedSkill) => boolean,
): number | null {
  const index = searchSkills(listing, query, { limit: MAX_SEARCH_LIMIT, accept }).results.findIndex((r) => r.name === name);
  return index === -1 ? null : index + 1;
}

/** `?limit=N` of the search route: a whole number 1..20 (absent: 5); anything else is INVALID_REQUEST. */
export function parseSearchLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > MAX_SEARCH_LIMIT) {
    throw new InvalidRequest(`Query parameter 'limit' must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, got '${value.slice(0, 40)}'`);
  }
  return Number(value);
}

/** `?q=`: required and not blank. Its length is not refused: the index reads a bounded part (MAX_QUERY_CHARS). */
export function parseSearchQuery(value: string | undefined): string {
  if (value === undefined || value.trim() === "") throw new InvalidRequest("Query parameter 'q' is required and must not be blank");
  return value;
}
