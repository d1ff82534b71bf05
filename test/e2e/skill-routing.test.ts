import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limiter } from "../../cli/bounded.js";
import { ApiClient, LANE_WAIT_SECONDS } from "./support/api-client.js";
import type { ApiResponse, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { formatReport, loadRoutingRequests, scoreOutcome, summarize } from "./support/routing-score.js";
import type { RoutingReport, RoutingRequest, ScoredOutcome } from "./support/routing-score.js";

/**
 * Issue 26, "Your own yardstick": the routing fixture (test/fixtures/routing: 433 skills shaped
 * like public collections, 237 requests as users write them) pushed into one project of the local
 * stack. For each request, the composition preview with the message (the Turn compose would
 * produce now, writing nothing) and GET …/skills/search?q=<message>&limit=5 (API.md "Additions
 * (third round)"). listed = an expected skill is in the Turn's catalog (or active in it);
 * reachable = listed or in the search's top 5. Floors: reachable ≥ 95 %, listed ≥ 80 % of the
 * requests that expect a skill; every request that names the product reachable; small talk
 * activates nothing on composed turns. The report (rates per kind, every miss) goes to the console.
 */

const TENANT = "acme";
const PROJECT = "routing";
const FIXTURE = join(import.meta.dirname, "..", "fixtures", "routing");
const SEARCH_LIMIT = 5;
const BUNDLED = ["code-guard", "code-review", "typescript-style"];
/** Parallel requests against the stack: enough to keep it busy, few enough for a 2-core machine. */
const PUSH_CONCURRENCY = 8;
const QUERY_CONCURRENCY = 4;

interface RankedEntry {
  name: string;
  score?: unknown;
}
interface SearchAnswer {
  results: { name: string; description: string; source: string; score: number }[];
  total: number;
}
interface Measured {
  request: RoutingRequest;
  preview: ApiResponse<Turn>;
  search: ApiResponse<SearchAnswer>;
}

const skillNames = readdirSync(join(FIXTURE, "skills"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const requests = loadRoutingRequests(join(FIXTURE, "requests.yaml"));
const positives = requests.filter((r) => r.expect.length > 0);
const smallTalk = requests.filter((r) => r.expect.length === 0);

let stack: LocalStack;
let api: ApiClient;
let processId: string;
let pushed: { name: string; status: number; text: string; ms: number }[] = [];
let measured: Measured[] = [];
let report: RoutingReport;

const enc = encodeURIComponent;
const search = (q: string) =>
  api.send<SearchAnswer>("GET", `/brain/${enc(TENANT)}/skills/search?projectId=${enc(PROJECT)}&q=${enc(q)}&limit=${SEARCH_LIMIT}`);

async function spawn(session: string): Promise<string> {
  const spawned = await api.spawn(TENANT, session, { recipe: "default", projectId: PROJECT });
  expect(spawned.status, spawned.text).toBe(201);
  return spawned.json.processId;
}

/** Median duration, to the millisecond: how a PUT's cost moves as the level fills. */
const medianMs = (runs: { ms: number }[]): number =>
  Math.round([...runs.map((r) => r.ms)].sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? 0);

const activatedNames = (turn: Turn): string[] => turn.activation.filter((a) => a.outcome === "activated").map((a) => a.name);

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(
    stack.httpUrl,
    await stack.token({ tenant: TENANT, login: "alice", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] }),
  );

  // Push: one PUT per SKILL.md, a bounded number in flight (as `skills push` does).
  const pushStarted = performance.now();
  const pushLimit = limiter(PUSH_CONCURRENCY);
  pushed = await Promise.all(
    skillNames.map((name) =>
      pushLimit(async () => {
        const started = performance.now();
        const put = await api.putDocument(
          TENANT,
          PROJECT,
          `_vance/skills/${name}/SKILL.md`,
          readFileSync(join(FIXTURE, "skills", name, "SKILL.md")),
        );
        return { name, status: put.status, text: put.text, ms: performance.now() - started };
      }),
    ),
  );
  const pushMs = performance.now() - pushStarted;
  processId = await spawn("routing");

  // Measure: the preview and the search for every request, a bounded number in flight.
  const measureStarted = performance.now();
  const queryLimit = limiter(QUERY_CONCURRENCY);
  measured = await Promise.all(
    requests.map((request) =>
      queryLimit(async () => ({
        request,
        preview: await api.composition(TENANT, processId, request.message),
        search: await search(request.message),
      })),
    ),
  );
  const scored: ScoredOutcome[] = measured.map(({ request, preview, search: found }) =>
    scoreOutcome(
      {
        request,
        catalog: preview.status === 200 ? preview.json.catalog.entries.map((e) => e.name) : [],
        active: preview.status === 200 ? preview.json.activeSkills.map((s) => s.name) : [],
        search: found.status === 200 ? found.json.results.map((r) => r.name) : undefined,
      },
      SEARCH_LIMIT,
    ),
  );
  report = summarize(scored);
  const catalog = measured[0]?.preview.status === 200 ? measured[0].preview.json.catalog : undefined;
  console.log(
    [
      `pushed ${skillNames.length} skills in ${(pushMs / 1000).toFixed(1)} s (median PUT of the first 50: ${medianMs(pushed.slice(0, 50))} ms, of the last 50: ${medianMs(pushed.slice(-50))} ms); ${requests.length} previews and searches in ${((performance.now() - measureStarted) / 1000).toFixed(1)} s`,
      `catalog of the first request: ${catalog?.entries.length ?? "?"} entries, ${catalog?.omittedCount ?? "?"} omitted, ${catalog?.usedChars ?? "?"} of ${catalog?.budgetChars ?? "?"} chars`,
      formatReport(report),
    ].join("\n"),
  );
}, 600_000);

afterAll(async () => {
  await stack?.close();
});

describe("skill routing over the fixture (issue 26)", () => {
  it("pushes every fixture skill, and every expected name is a skill the project sees", async () => {
    // Act
    const effective = await api.effective(TENANT, PROJECT);

    // Assess
    expect(pushed.filter((p) => p.status !== 200).map((p) => `${p.name}: ${p.status} ${p.text.slice(0, 200)}`)).toEqual([]);
    expect(skillNames.length).toBeGreaterThanOrEqual(300);
    expect(effective.status, effective.text.slice(0, 500)).toBe(200);
    const visible = new Set(effective.json.skills.map((s) => s.name));
    expect(skillNames.filter((name) => !visible.has(name))).toEqual([]);
    expect([...new Set(requests.flatMap((r) => r.expect))].filter((name) => !visible.has(name) && !BUNDLED.includes(name))).toEqual([]);
    expect(positives.length).toBeGreaterThanOrEqual(150);
  });

  it("composes the preview for every request, with a catalog that omits most of the fixture", () => {
    // Assess
    expect(
      measured
        .filter((m) => m.preview.status !== 200)
        .map((m) => `${m.request.message}: ${m.preview.status} ${m.preview.text.slice(0, 200)}`),
    ).toEqual([]);
    const catalog = measured[0]!.preview.json.catalog;
    expect(catalog.entries.length).toBeGreaterThan(0);
    expect(catalog.omittedCount).toBeGreaterThan(0);
    expect(catalog.entries.length + catalog.omittedCount).toBeGreaterThanOrEqual(skillNames.length);
  });

  it("answers GET …/skills/search for every request: at most 5 results, best first, each with a score", () => {
    // Assess
    const failed = measured.filter((m) => m.search.status !== 200);
    expect(failed.map((m) => `${m.request.message}: ${m.search.status} ${m.search.text.slice(0, 200)}`).slice(0, 5)).toEqual([]);
    for (const { search: found } of measured) {
      expect(found.json.results.length).toBeLessThanOrEqual(SEARCH_LIMIT);
      expect(found.json.total).toBeGreaterThanOrEqual(found.json.results.length);
      const scores = found.json.results.map((r) => r.score);
      expect(scores.every((s) => typeof s === "number" && Number.isFinite(s))).toBe(true);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it("ranks the catalog of every request that expects a skill, each entry with its score, best first", () => {
    // Assess
    const unranked = measured.filter(
      (m) => m.request.expect.length > 0 && !(m.preview.json.catalog.entries as RankedEntry[]).every((e) => typeof e.score === "number"),
    );
    expect(unranked.map((m) => m.request.message).slice(0, 10)).toEqual([]);
    for (const m of measured.filter((m) => m.request.expect.length > 0)) {
      const scores = (m.preview.json.catalog.entries as RankedEntry[]).map((e) => e.score as number);
      expect(scores, m.request.message).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it("reaches a right skill (listed, or in the top 5 of the search) for at least 95 % of the requests", () => {
    expect(report.reachablePct, `${report.reachable} of ${report.requests}; the misses are in the console report`).toBeGreaterThanOrEqual(
      95,
    );
  });

  it("lists a right skill in the Turn's catalog for at least 80 % of the requests", () => {
    expect(report.listedPct, `${report.listed} of ${report.requests}; the misses are in the console report`).toBeGreaterThanOrEqual(80);
  });

  it("reaches a right skill for every request that names the product", () => {
    expect(report.unreachableNamed.map((s) => s.request.message)).toEqual([]);
  });

  it("activates nothing on turns composed from small talk, and the preview shows the turn compose makes", async () => {
    // Prepare
    const chatty = await spawn("routing-small-talk");
    const fresh = await spawn("routing-named");
    const named = positives.find((r) => r.kind === "named" && r.message.includes("Linear"))!;

    // Act
    const turns: Turn[] = [];
    for (const request of smallTalk) {
      const composed = await api.compose(TENANT, chatty, { message: request.message }, LANE_WAIT_SECONDS);
      expect(composed.status, composed.text.slice(0, 300)).toBe(200);
      turns.push(composed.json.result!);
    }
    const namedTurn = await api.compose(TENANT, fresh, { message: named.message }, LANE_WAIT_SECONDS);

    // Assess
    expect(smallTalk.length).toBeGreaterThanOrEqual(10);
    expect(turns.flatMap((turn, i) => activatedNames(turn).map((name) => `${smallTalk[i]!.message} → ${name}`))).toEqual([]);
    expect(turns.flatMap((turn) => turn.activeSkills.map((s) => s.name))).toEqual([]);
    const previews = measured.filter((m) => m.request.expect.length === 0);
    expect(previews.flatMap((m) => activatedNames(m.preview.json).map((name) => `${m.request.message} → ${name}`))).toEqual([]);
    expect(namedTurn.status, namedTurn.text.slice(0, 300)).toBe(200);
    const previewed = measured.find((m) => m.request === named)!.preview.json;
    expect(namedTurn.json.result!.catalog).toEqual(previewed.catalog);
  });
});
