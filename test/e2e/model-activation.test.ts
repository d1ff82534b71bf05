import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import type { ActiveSkillRef, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "Catalog and model activation" over the local stack: 30 trigger-less project skills
 * (Agent Skills form) are listed in a Turn's catalog; with a small recipe budget the rest is
 * named in `omitted`; skill_activate activates one through the lane (activatedBy: model) and
 * answers its block, and the next Turn carries its body instead of its catalog entry.
 */

const TENANT = "acme";
const P1 = "p1";
const NAMES = Array.from({ length: 30 }, (_, i) => `helper-${String(i).padStart(2, "0")}`);
const docOf = (name: string): string =>
  skillMd(
    [`name: ${name}`, `description: Helps with chore ${name.slice(-2)}. Use when the user asks for chore ${name.slice(-2)}.`].join("\n"),
    `Body of ${name}: do the chore.\n`,
  );

let stack: LocalStack;
let api: ApiClient;

const bundled = new Set(["code-guard", "code-review", "typescript-style"]);
const ownNames = (names: readonly string[]): string[] => names.filter((n) => !bundled.has(n));

async function spawn(session: string, recipe: string): Promise<string> {
  const spawned = await api.spawn(TENANT, session, { recipe, projectId: P1 });
  expect(spawned.status, spawned.text).toBe(201);
  return spawned.json.processId;
}

async function compose(processId: string, message: string): Promise<Turn> {
  const composed = await api.compose(TENANT, processId, { message }, LANE_WAIT_SECONDS);
  expect(composed.status, composed.text).toBe(200);
  return composed.json.result!;
}

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] }));
  for (const name of NAMES) {
    const put = await api.putDocument(TENANT, P1, `_vance/skills/${name}/SKILL.md`, docOf(name));
    expect(put.status, put.text).toBe(200);
  }
  const recipe = await api.putDocument(
    TENANT,
    P1,
    "_vance/recipes/small-catalog.yaml",
    "engine: ford\ncatalogBudgetChars: 900\ncatalogPinned: [helper-29]\n",
  );
  expect(recipe.status, recipe.text).toBe(200);
});

afterAll(async () => {
  await stack?.close();
});

describe("catalog and skill_activate over the local stack", () => {
  it("names all 30 skills within the default budget, and omits the rest of a small recipe budget by name", async () => {
    // Prepare
    const wide = await spawn("catalog-wide", "default");
    const small = await spawn("catalog-small", "small-catalog");

    // Act
    const preview = await api.composition(TENANT, wide);
    const wideTurn = await compose(wide, "hello");
    const smallTurn = await compose(small, "hello");

    // Assess
    expect(ownNames(wideTurn.catalog.entries.map((e) => e.name))).toEqual(NAMES);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.catalog).toEqual(wideTurn.catalog);
    expect(wideTurn.catalog.omitted).toEqual([]);
    expect(wideTurn.catalog.usedChars).toBeLessThanOrEqual(wideTurn.catalog.budgetChars);
    expect(wideTurn.tools).toContain("skill_activate");
    expect(wideTurn.systemPrompt.at(-1)!.content).toContain("- helper-07: Helps with chore 07.");

    expect(smallTurn.catalog.budgetChars).toBe(900);
    expect(smallTurn.catalog.usedChars).toBeLessThanOrEqual(900);
    expect(smallTurn.catalog.entries[0]!.name).toBe("helper-29");
    expect(smallTurn.catalog.omitted.length).toBeGreaterThan(0);
    expect(smallTurn.catalog.omittedCount).toBe(smallTurn.catalog.omitted.length);
    const named = [...smallTurn.catalog.entries.map((e) => e.name), ...smallTurn.catalog.omitted];
    expect(ownNames(named).sort()).toEqual(NAMES);
  });

  it("activates a catalog skill through the lane for the model, answers its block, and the next turn carries its body", async () => {
    // Prepare
    const processId = await spawn("catalog-activate", "default");
    await compose(processId, "hello");

    // Act
    const activated = await api.tool(TENANT, processId, "skill_activate", { name: "helper-07" });
    const unknown = await api.tool(TENANT, processId, "skill_activate", { name: "helper-99" });
    const next = await compose(processId, "do chore 07");
    const active = await api.active(TENANT, processId);

    // Assess
    expect(activated.status, activated.text).toBe(200);
    const result = activated.json.result as {
      activeSkills: ActiveSkillRef[];
      turnScheduled: boolean;
      skill: { name: string; content: string };
    };
    expect(result.activeSkills).toEqual([expect.objectContaining({ name: "helper-07", activatedBy: "model" })]);
    expect(result.skill.name).toBe("helper-07");
    expect(result.skill.content).toContain("--- Skill: helper-07 ---");
    expect(result.skill.content).toContain("Body of helper-07: do the chore.");
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)?.code).toBe("SKILL_NOT_FOUND");
    expect(next.skillSection).toContain("Body of helper-07: do the chore.");
    expect(next.catalog.entries.map((e) => e.name)).not.toContain("helper-07");
    expect(next.activeSkills).toEqual([expect.objectContaining({ name: "helper-07", activatedBy: "model" })]);
    expect(active.status, active.text).toBe(200);
    expect(active.json.activeSkills).toEqual([expect.objectContaining({ name: "helper-07", activatedBy: "model" })]);
  });
});
