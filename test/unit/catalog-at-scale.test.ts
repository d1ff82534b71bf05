import { describe, expect, it } from "vitest";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { SKILL_ACTIVATE_TOOL, SKILL_SEARCH_TOOL } from "../../shared/turns/service-tool-specs.js";
import type { Turn } from "../../shared/turns/turn.js";
import { InvalidRequest } from "../../shared/errors.js";
import { ALICE, EmptyLayer, steeringHarness } from "../support/steering-harness.js";

const turnOf = (result: unknown): Turn => result as Turn;
const PRODUCTS = [
  "airtable",
  "asana",
  "discord",
  "dropbox",
  "figma",
  "github",
  "gmail",
  "hubspot",
  "jira",
  "linear",
  "notion",
  "slack",
  "stripe",
  "trello",
  "zendesk",
];

/**
 * API.md "Catalog at scale" through the turn: 15 automation skills and a recipe whose catalog
 * budget lists only a few, so the catalog must rank, omit, say so, and hand the model skill_search.
 */
async function atScale() {
  const h = await steeringHarness();
  for (const p of PRODUCTS)
    await h.putSkill(`${p}-automation`, {
      description: `Automate ${p} tasks via Rube MCP (Composio). Always search tools first.`,
      body: `# ${p} automation\n\n## Core workflows\n`,
    });
  await h.putFile("_vance/recipes/small.yaml", "engine: ford\ncatalogBudgetChars: 500\n");
  const process = await h.spawn("small");
  const invoker = new ToolInvoker({
    sources: { store: h.documents, bundled: new EmptyLayer() },
    preview: (p, user) => h.app.turns.preview(p, undefined, undefined, user),
    tools: SERVICE_TOOLS,
  });
  return { h, process, invoker };
}

describe("catalog at scale, through the turn", () => {
  it("ranks the catalog for the message, omits the rest with one warning, adds skill_search, and drops the enum of skill_activate", async () => {
    // Prepare
    const { h, process } = await atScale();

    // Act
    const turn = turnOf((await h.compose(process.processId, "post a message to Slack saying the deploy is done")).result);

    // Assess
    expect(turn.catalog.entries[0]!.name).toBe("slack-automation");
    expect(turn.catalog.entries.every((e) => typeof e.score === "number")).toBe(true);
    expect(turn.catalog.omittedCount).toBeGreaterThan(0);
    expect(turn.tools).toEqual(expect.arrayContaining([SKILL_ACTIVATE_TOOL, SKILL_SEARCH_TOOL]));
    expect(turn.warnings.filter((w) => w.includes("skill_search"))).toEqual([
      `The skill catalog omitted ${turn.catalog.omittedCount} candidates over its budget; skill_search reaches them and skill_activate accepts them`,
    ]);
    const activate = turn.toolSpecs.find((s) => s.name === SKILL_ACTIVATE_TOOL)!;
    expect((activate.inputSchema as { properties: { name: Record<string, unknown> } }).properties.name.enum).toBeUndefined();
    expect(turn.toolSpecs.some((s) => s.name === SKILL_SEARCH_TOOL)).toBe(true);
  });

  it("explains each omitted candidate with explain=all: omitted-by-budget, its rank after the listed ones, and its score", async () => {
    // Prepare
    const { h, process } = await atScale();

    // Act
    const turn = await h.app.turns.preview(await h.process(process.processId), "file a Linear ticket", undefined, ALICE, {
      explain: "all",
    });

    // Assess
    const omitted = turn.activation.filter((a) => a.reason === "omitted-by-budget");
    expect(omitted.map((a) => a.name).sort()).toEqual([...turn.catalog.omitted].sort());
    expect(omitted.map((a) => a.rank).sort((a, b) => a! - b!)[0]).toBe(turn.catalog.entries.length + 1);
    expect(omitted.every((a) => typeof a.score === "number")).toBe(true);
  });

  it("skill_search finds an omitted candidate, which activates by name (the lane checks names, not the catalog); bad args are INVALID_REQUEST", async () => {
    // Prepare
    const { h, process, invoker } = await atScale();
    const listed = turnOf((await h.compose(process.processId, "hello")).result).catalog.entries.map((e) => e.name);
    expect(listed).not.toContain("zendesk-automation");

    // Act
    const found = (
      await invoker.invoke(await h.process(process.processId), ALICE, SKILL_SEARCH_TOOL, { query: "reply to a zendesk ticket", limit: 3 })
    ).result as {
      results: { name: string }[];
      total: number;
    };
    const activated = await h.steer(process.processId, { command: "ACTIVATE", skillName: found.results[0]!.name });

    // Assess
    expect(found.results[0]!.name).toBe("zendesk-automation");
    expect(activated.status).toBe("DONE");
    for (const args of [{ query: "" }, { query: "slack", limit: 0 }, { query: "slack", limit: 21 }, { query: "slack", limit: "x" }]) {
      await expect(invoker.invoke(await h.process(process.processId), ALICE, SKILL_SEARCH_TOOL, args)).rejects.toBeInstanceOf(
        InvalidRequest,
      );
    }
  });

  it("answers 50 parallel searches alike", async () => {
    // Prepare
    const { h, process, invoker } = await atScale();
    const snapshot = await h.process(process.processId);

    // Act
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => invoker.invoke(snapshot, ALICE, SKILL_SEARCH_TOOL, { query: "create a HubSpot deal" })),
    );

    // Assess
    const first = JSON.stringify(answers[0]!.result);
    expect(answers.every((a) => JSON.stringify(a.result) === first)).toBe(true);
    expect((answers[0]!.result as { results: { name: string }[] }).results[0]!.name).toBe("hubspot-automation");
  });
});
