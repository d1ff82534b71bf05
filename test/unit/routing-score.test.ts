import { describe, expect, it } from "vitest";
import { formatReport, percent, scoreOutcome, summarize } from "../e2e/support/routing-score.js";
import type { RoutingRequest } from "../e2e/support/routing-score.js";

/** The yardstick's arithmetic (issue 26): what counts as listed and reachable, and the rates. */

const request = (message: string, expect: string[], kind: RoutingRequest["kind"] = "named", namesProduct = true): RoutingRequest => ({
  message,
  kind,
  expect,
  namesProduct,
});

describe("routing score", () => {
  it("counts a request listed when an expected skill is in the catalog or active, reachable when also in the search's top results", () => {
    // Act
    const inCatalog = scoreOutcome({ request: request("a", ["x", "y"]), catalog: ["w", "y"], active: [], search: [] }, 5);
    const active = scoreOutcome({ request: request("b", ["x"]), catalog: ["w"], active: ["x"], search: [] }, 5);
    const searched = scoreOutcome({ request: request("c", ["x"]), catalog: ["w"], active: [], search: ["v", "x"] }, 5);
    const tooDeep = scoreOutcome({ request: request("d", ["x"]), catalog: [], active: [], search: ["1", "2", "3", "4", "5", "x"] }, 5);
    const noSearch = scoreOutcome({ request: request("e", ["x"]), catalog: [], active: [], search: undefined }, 5);

    // Assess
    expect([inCatalog.listed, inCatalog.reachable]).toEqual([true, true]);
    expect([active.listed, active.reachable]).toEqual([true, true]);
    expect([searched.listed, searched.reachable, searched.searchRank]).toEqual([false, true, 2]);
    expect([tooDeep.reachable, tooDeep.searchRank]).toEqual([false, undefined]);
    expect([noSearch.listed, noSearch.reachable]).toEqual([false, false]);
  });

  it("rates only requests that expect a skill, per kind, and names the unreachable ones that name the product", () => {
    // Prepare
    const scored = [
      scoreOutcome({ request: request("listed", ["x"]), catalog: ["x"], active: [], search: [] }, 5),
      scoreOutcome({ request: request("searched", ["x"], "paraphrase", false), catalog: [], active: [], search: ["x"] }, 5),
      scoreOutcome({ request: request("lost named", ["x"]), catalog: [], active: [], search: ["y"] }, 5),
      scoreOutcome({ request: request("lost paraphrase", ["x"], "paraphrase", false), catalog: [], active: [], search: undefined }, 5),
      scoreOutcome({ request: request("hi", [], "smalltalk", false), catalog: ["x"], active: [], search: [] }, 5),
    ];

    // Act
    const report = summarize(scored);

    // Assess
    expect([report.requests, report.listed, report.reachable, report.negatives, report.searchFailures]).toEqual([4, 1, 2, 1, 1]);
    expect([report.listedPct, report.reachablePct]).toEqual([25, 50]);
    expect(report.byKind).toEqual({
      named: { requests: 2, listed: 1, reachable: 1 },
      paraphrase: { requests: 2, listed: 0, reachable: 1 },
    });
    expect(report.unreachableNamed.map((s) => s.request.message)).toEqual(["lost named"]);
    expect(report.unlisted.map((s) => s.request.message)).toEqual(["searched", "lost named", "lost paraphrase"]);
    expect(formatReport(report)).toContain('UNREACHABLE "lost named"');
  });

  it("rounds to one decimal and gives 0 for no requests, so an empty run fails every floor", () => {
    expect([percent(2, 3), percent(0, 0), percent(221, 221)]).toEqual([66.7, 0, 100]);
  });
});
