import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "Explainable activation" over the local stack: a recipe whose allowedSkills leave out a
 * skill whose pattern matches; the composed Turn's ledger explains the trigger that activated one
 * skill and the one that was blocked, the preview with explain=all names the skill that did not
 * match, and GET …/turns/{turnId} answers the stored Turn.
 */

const TENANT = "acme";
const P1 = "p1";

let stack: LocalStack;
let api: ApiClient;
let processId: string;

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] }));
  const seeded = [
    await api.putDocument(TENANT, P1, "_vance/recipes/narrow.yaml", "engine: ford\nallowedSkills: [deploy, quiet]\n", "application/yaml"),
    await api.putDocument(
      TENANT,
      P1,
      "_vance/skills/deploy/SKILL.md",
      skillMd("name: deploy\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy, release]", "Deploy body."),
    ),
    await api.putDocument(
      TENANT,
      P1,
      "_vance/skills/audit/SKILL.md",
      skillMd("name: audit\ndescription: Audits.\ntriggers:\n  - type: PATTERN\n    pattern: 'audit (\\w+)'", "Audit body."),
    ),
    await api.putDocument(
      TENANT,
      P1,
      "_vance/skills/quiet/SKILL.md",
      skillMd("name: quiet\ndescription: Quiet.\ntriggers:\n  - type: KEYWORDS\n    keywords: [rollback]", "Quiet body."),
    ),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
  const spawned = await api.spawn(TENANT, "ledger-session", { recipe: "narrow", projectId: P1 });
  expect(spawned.status, spawned.text).toBe(201);
  processId = spawned.json.processId;
});

afterAll(async () => {
  await stack?.close();
});

describe("the activation ledger over the local stack", () => {
  it("explains a trigger match and a blocked trigger, and keeps the Turn for GET …/turns/{turnId}", async () => {
    // Act
    const composed = await api.compose(TENANT, processId, { message: "Please deploy, then audit Logs" }, LANE_WAIT_SECONDS);
    const stored = await api.turn(TENANT, processId, composed.json.turnId);
    const unknown = await api.turn(TENANT, processId, "no-such-turn");

    // Assess
    expect(composed.status, composed.text).toBe(200);
    const turn = composed.json.result!;
    expect(turn.turnId).toBe(composed.json.turnId);
    expect(turn.activation).toEqual([
      { name: "deploy", outcome: "activated", activatedBy: "trigger", trigger: { type: "KEYWORDS", index: 0, keywords: ["deploy"] } },
      { name: "audit", outcome: "blocked", reason: "not-allowed", trigger: { type: "PATTERN", index: 0, match: "audit Logs" } },
    ]);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.json).toEqual(turn);
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)?.code).toBe("REQUEST_NOT_FOUND");
  });

  it("lists the skills whose triggers did not match in the preview with explain=all", async () => {
    // Act
    const preview = await api.composition(TENANT, processId, "audit everything", { explain: "all" });

    // Assess
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.activation).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "audit", outcome: "blocked", reason: "not-allowed" }),
        { name: "quiet", outcome: "not-matched" },
      ]),
    );
  });
});
