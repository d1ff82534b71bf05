import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/** API.md "Author's loop" over the local stack: usage counters after a mix of activations, trigger evals on save and on demand. */

const TENANT = "acme";
const P1 = "p1";

interface UsageRow {
  name: string;
  source: string | null;
  explicit: number;
  trigger: number;
  recipe: number;
  refused: number;
}

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] }));
  const seeded = [
    await api.putDocument(TENANT, P1, "_vance/recipes/mix.yaml", "engine: ford\nallowedSkills: [deploy, helper]\ndefaultActiveSkills: [helper]\n", "application/yaml"),
    await api.putDocument(TENANT, P1, "_vance/skills/deploy/SKILL.md", skillMd("name: deploy\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy]", "Deploy body.")),
    await api.putDocument(TENANT, P1, "_vance/skills/helper/SKILL.md", skillMd("name: helper\ndescription: Helps.", "Helper body.")),
    await api.putDocument(TENANT, P1, "_vance/skills/outsider/SKILL.md", skillMd("name: outsider\ndescription: Not allowed.", "Outsider body.")),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
});

afterAll(async () => {
  await stack?.close();
});

describe("usage counters over the local stack", () => {
  it("counts recipe, trigger, explicit and refused activations per skill, and nothing for a quiet turn", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "usage-session", { recipe: "mix", projectId: P1 });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;

    // Act
    await api.compose(TENANT, processId, { message: "nothing to trigger here" }, LANE_WAIT_SECONDS);
    await api.compose(TENANT, processId, { message: "please deploy" }, LANE_WAIT_SECONDS);
    await api.steer(TENANT, processId, { command: "CLEAR", skillName: "helper" }, LANE_WAIT_SECONDS);
    await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "helper" }, LANE_WAIT_SECONDS);
    const refused = await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "outsider" }, LANE_WAIT_SECONDS);
    const usage = await api.send<{ usage: UsageRow[] }>("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}&days=7`);
    const badDays = await api.send("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}&days=9999`);
    const stranger = await api.as(await stack.token({ tenant: TENANT, login: "eve", projects: ["other"] })).send("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}`);

    // Assess
    expect(errorOf(refused)?.code).toBe("SKILL_NOT_ALLOWED");
    expect(usage.status, usage.text).toBe(200);
    const pick = (name: string) => {
      const row = usage.json.usage.find((r) => r.name === name);
      return row && { source: row.source, explicit: row.explicit, trigger: row.trigger, recipe: row.recipe, refused: row.refused };
    };
    expect(pick("helper")).toEqual({ source: "PROJECT", explicit: 1, trigger: 0, recipe: 1, refused: 0 });
    expect(pick("deploy")).toEqual({ source: "PROJECT", explicit: 0, trigger: 1, recipe: 0, refused: 0 });
    expect(pick("outsider")).toEqual({ source: null, explicit: 0, trigger: 0, recipe: 0, refused: 1 });
    expect(badDays.status).toBe(400);
    expect(errorOf(badDays)?.code).toBe("INVALID_REQUEST");
    expect(stranger.status).toBe(403);
  });
});

describe("trigger evals over the local stack", () => {
  it("returns failing evals as warnings on save, refuses a malformed evals file, and runs them on demand", async () => {
    // Prepare
    const evalsPath = "_vance/skills/deploy/evals/triggers.yaml";

    // Act
    const saved = await api.putDocument(TENANT, P1, evalsPath, "should: [deploy now, ship it]\nshould-not: [hello]\n", "application/yaml");
    const malformed = await api.putDocument(TENANT, P1, evalsPath, `should:\n${Array.from({ length: 10_000 }, (_, i) => `  - m${i}`).join("\n")}\n`, "application/yaml");
    const report = await api.send<{ name: string; precision: number; recall: number; cases: unknown[] }>("GET", `/brain/${TENANT}/skills/effective/deploy/evals?projectId=${P1}`);
    const none = await api.send("GET", `/brain/${TENANT}/skills/effective/helper/evals?projectId=${P1}`);

    // Assess
    expect(saved.status, saved.text).toBe(200);
    expect((saved.json as { warnings: { message: string }[] }).warnings.map((w) => w.message)).toContain("should fire but did not: 'ship it'");
    expect(malformed.status).toBe(422);
    expect(errorOf(malformed)?.code).toBe("INVALID_DOCUMENT");
    expect(report.status, report.text).toBe(200);
    expect(report.json).toMatchObject({ name: "deploy", precision: 1, recall: 0.5 });
    expect(report.json.cases).toHaveLength(3);
    expect(none.status).toBe(404);
    expect(errorOf(none)?.code).toBe("DOCUMENT_NOT_FOUND");
  });
});

describe("version history over the local stack", () => {
  it("answers 501 VERSIONS_UNAVAILABLE (its S3 emulator keeps no versions) and leaves the document alone", async () => {
    // Prepare
    const path = "_vance/skills/helper/SKILL.md";

    // Act
    const versions = await api.send("GET", `/brain/${TENANT}/projects/${P1}/documents/${path}?versions`);
    const restore = await api.send("POST", `/brain/${TENANT}/projects/${P1}/documents/${path}:restore`, { body: { versionId: "v1" } });
    const badBody = await api.send("POST", `/brain/${TENANT}/projects/${P1}/documents/${path}:restore`, { body: { version: 1 } });
    const current = await api.getDocument(TENANT, P1, path);

    // Assess
    expect(versions.status).toBe(501);
    expect(errorOf(versions)?.code).toBe("VERSIONS_UNAVAILABLE");
    expect(restore.status).toBe(501);
    expect(badBody.status).toBe(400);
    expect(current.status).toBe(200);
    expect(current.text).toContain("Helper body.");
  });
});
