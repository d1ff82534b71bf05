import { readFileSync } from "node:fs";
import { parse } from "yaml";
import * as z from "zod";

/**
 * Scoring of the routing yardstick (issue 26): for each request, did a right skill reach the
 * model? `listed`: an expected skill is among the Turn's catalog entries, or is active in the
 * Turn (a trigger activated it, so the model has its body — more than a catalog line).
 * `reachable`: listed, or among the top results of the skill search. Percentages are over the
 * requests that expect something; small talk (`expect: []`) is judged by what it activates, not here.
 */

export const ROUTING_KINDS = ["named", "paraphrase", "typo", "spelling", "long", "smalltalk"] as const;

const RoutingRequestSchema = z.object({
  message: z.string().min(1),
  kind: z.enum(ROUTING_KINDS),
  expect: z.array(z.string().min(1)),
  namesProduct: z.boolean(),
});
export type RoutingRequest = z.infer<typeof RoutingRequestSchema>;

export function loadRoutingRequests(path: string): RoutingRequest[] {
  return z
    .array(RoutingRequestSchema)
    .min(1)
    .parse(parse(readFileSync(path, "utf8")));
}

/** What one request got: the catalog's entry names, the Turn's active skills, the search's names (undefined: search failed). */
export interface RoutingOutcome {
  request: RoutingRequest;
  catalog: readonly string[];
  active: readonly string[];
  search: readonly string[] | undefined;
}

export interface ScoredOutcome extends RoutingOutcome {
  listed: boolean;
  reachable: boolean;
  /** 1-based rank of the best-placed expected skill in the search, undefined when none is in it. */
  searchRank: number | undefined;
}

export function scoreOutcome(outcome: RoutingOutcome, searchDepth: number): ScoredOutcome {
  const expected = new Set(outcome.request.expect);
  const listed = outcome.catalog.some((name) => expected.has(name)) || outcome.active.some((name) => expected.has(name));
  const index = (outcome.search ?? []).slice(0, searchDepth).findIndex((name) => expected.has(name));
  const searchRank = index < 0 ? undefined : index + 1;
  return { ...outcome, listed, reachable: listed || searchRank !== undefined, searchRank };
}

export interface RateRow {
  requests: number;
  listed: number;
  reachable: number;
}

export interface RoutingReport extends RateRow {
  listedPct: number;
  reachablePct: number;
  /** Requests with `expect: []`, not counted in the rates. */
  negatives: number;
  byKind: Partial<Record<RoutingRequest["kind"], RateRow>>;
  /** Non-negative requests that were not listed (reachable or not), in request order. */
  unlisted: ScoredOutcome[];
  /** Non-negative requests that were not reachable. */
  unreachable: ScoredOutcome[];
  /** Requests that name the product and were not reachable. */
  unreachableNamed: ScoredOutcome[];
  /** Requests whose search failed (not 200). */
  searchFailures: number;
}

/** Percent with one decimal; 0 of 0 is 0, so an empty run cannot pass a floor. */
export const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10);

export function summarize(scored: readonly ScoredOutcome[]): RoutingReport {
  const positives = scored.filter((s) => s.request.expect.length > 0);
  const byKind: RoutingReport["byKind"] = {};
  for (const s of positives) {
    const row = (byKind[s.request.kind] ??= { requests: 0, listed: 0, reachable: 0 });
    row.requests += 1;
    if (s.listed) row.listed += 1;
    if (s.reachable) row.reachable += 1;
  }
  const listed = positives.filter((s) => s.listed).length;
  const reachable = positives.filter((s) => s.reachable).length;
  return {
    requests: positives.length,
    listed,
    reachable,
    listedPct: percent(listed, positives.length),
    reachablePct: percent(reachable, positives.length),
    negatives: scored.length - positives.length,
    byKind,
    unlisted: positives.filter((s) => !s.listed),
    unreachable: positives.filter((s) => !s.reachable),
    unreachableNamed: positives.filter((s) => !s.reachable && s.request.namesProduct),
    searchFailures: scored.filter((s) => s.search === undefined).length,
  };
}

const shortList = (names: readonly string[], max: number): string =>
  names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")}, … (${names.length})`;

/** The console report: rates, rates per kind, then every miss with what the model saw instead. */
export function formatReport(report: RoutingReport): string {
  const rate = (row: RateRow): string =>
    `listed ${percent(row.listed, row.requests)} %, reachable ${percent(row.reachable, row.requests)} % of ${row.requests}`;
  const lines = [
    `routing: ${rate(report)} (${report.negatives} small-talk requests not counted; ${report.searchFailures} searches failed)`,
    ...ROUTING_KINDS.flatMap((kind) => (report.byKind[kind] ? [`  ${kind.padEnd(10)} ${rate(report.byKind[kind])}`] : [])),
  ];
  if (report.unlisted.length > 0) lines.push(`not listed (${report.unlisted.length}):`);
  for (const miss of report.unlisted) {
    const searched = miss.search === undefined ? "search failed" : `search top: ${shortList(miss.search, 5) || "(none)"}`;
    lines.push(
      `  ${miss.reachable ? "reachable  " : "UNREACHABLE"} ${JSON.stringify(miss.request.message.length > 90 ? `${miss.request.message.slice(0, 90)}…` : miss.request.message)}`,
      `      expected ${shortList(miss.request.expect, 4)}; catalog first: ${shortList(miss.catalog, 5) || "(empty)"}; ${searched}`,
    );
  }
  return lines.join("\n");
}
