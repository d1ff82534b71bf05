import { RelevanceIndex } from "./relevance-index.js";
import type { IndexableSkill } from "./relevance-index.js";

/**
 * What relevance needs of one listing, built once per listing identity (the warm catalogue hands
 * out the same frozen array while nothing changed, like catalogFor's memo): the index, the
 * listing positions in name order (one per name: the last, as a Map by name keeps it), and a
 * position by name. A turn then pays a query over the postings, not a pass that tokenizes
 * thousands of skills.
 */
export interface ListingRelevance {
  index: RelevanceIndex;
  /** Listing positions sorted by name (code points), one per name. */
  nameOrder: Int32Array;
  positionOf: ReadonlyMap<string, number>;
}

const memo = new WeakMap<readonly IndexableSkill[], ListingRelevance>();

export function listingRelevance(listing: readonly IndexableSkill[]): ListingRelevance {
  const hit = memo.get(listing);
  if (hit !== undefined) return hit;
  const positionOf = new Map<string, number>();
  for (let i = 0; i < listing.length; i++) positionOf.set(listing[i]!.name, i);
  const nameOrder = Int32Array.from([...positionOf.values()].sort((a, b) => byCodePoints(listing[a]!.name, listing[b]!.name)));
  const built: ListingRelevance = { index: RelevanceIndex.build(listing), nameOrder, positionOf };
  memo.set(listing, built);
  return built;
}

export const byCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Scores are shown and compared rounded: what a reader sees tied is ordered as a tie. */
export const roundScore = (score: number): number => Math.round(score * 1000) / 1000;

export interface RankedPosition {
  position: number;
  score: number;
}

/**
 * Best first: score (rounded), then recent usage, then name — the order of the catalog and of
 * skill_search alike.
 */
export function rankByRelevance(scored: readonly RankedPosition[], names: (position: number) => string, usage: ReadonlyMap<string, number> | undefined): RankedPosition[] {
  const used = (position: number): number => usage?.get(names(position)) ?? 0;
  return [...scored].sort((a, b) => b.score - a.score || used(b.position) - used(a.position) || byCodePoints(names(a.position), names(b.position)));
}
