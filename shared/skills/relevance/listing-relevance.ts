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
  /** Each position's place in nameOrder; -1 for a position another of its name shadows. */
  nameRank: Int32Array;
}

const memo = new WeakMap<readonly IndexableSkill[], ListingRelevance>();

export function listingRelevance(listing: readonly IndexableSkill[]): ListingRelevance {
  const hit = memo.get(listing);
  if (hit !== undefined) return hit;
  const positionOf = new Map<string, number>();
  for (let i = 0; i < listing.length; i++) positionOf.set(listing[i]!.name, i);
  const nameOrder = Int32Array.from([...positionOf.values()].sort((a, b) => byCodePoints(listing[a]!.name, listing[b]!.name)));
  const nameRank = new Int32Array(listing.length).fill(-1);
  nameOrder.forEach((position, rank) => {
    nameRank[position] = rank;
  });
  const built: ListingRelevance = { index: RelevanceIndex.build(listing), nameOrder, positionOf, nameRank };
  memo.set(listing, built);
  return built;
}

export const byCodePoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Scores are shown and compared rounded: what a reader sees tied is ordered as a tie. */
export const roundScore = (score: number): number => Math.round(score * 1000) / 1000;

/**
 * A skill scoring below this share of the best score counts as not matched: it only shares
 * common words (`automation`, `tasks`) with the message, and ranking thousands of such near-zero
 * scores would order noise (and cost a sort of every candidate).
 */
export const MIN_RELATIVE_SCORE = 0.05;

export interface RankedPosition {
  position: number;
  score: number;
}

/**
 * Best first: score (rounded), then recent usage, then name — the order of the catalog and of
 * skill_search alike.
 */
export function rankByRelevance(
  scored: readonly RankedPosition[],
  names: (position: number) => string,
  usage: ReadonlyMap<string, number> | undefined,
  nameRank?: Int32Array,
): RankedPosition[] {
  const used = usage === undefined || usage.size === 0 ? undefined : (position: number): number => usage.get(names(position)) ?? 0;
  const byName =
    nameRank !== undefined
      ? (a: number, b: number): number => nameRank[a]! - nameRank[b]!
      : (a: number, b: number): number => byCodePoints(names(a), names(b));
  return [...scored].sort(
    (a, b) => b.score - a.score || (used === undefined ? 0 : used(b.position) - used(a.position)) || byName(a.position, b.position),
  );
}

/**
 * The matched skills `accept` lets through, their scores rounded, those under MIN_RELATIVE_SCORE
 * of the best left out; undefined when none scores.
 */
export function matchedPositions(
  relevance: ListingRelevance,
  query: string,
  accept: (position: number) => boolean,
): RankedPosition[] | undefined {
  const all = relevance.index.scoreAll(query);
  if (all === undefined) return undefined;
  let best = 0;
  const accepted: number[] = [];
  for (const position of all.touched) {
    if (relevance.nameRank[position] === -1 || !accept(position)) continue;
    accepted.push(position);
    if (all.scores[position]! > best) best = all.scores[position]!;
  }
  if (best === 0) return undefined;
  const out: RankedPosition[] = [];
  for (const position of accepted) {
    const score = all.scores[position]!;
    if (score >= best * MIN_RELATIVE_SCORE) out.push({ position, score: roundScore(score) });
  }
  return out.length === 0 ? undefined : out;
}
