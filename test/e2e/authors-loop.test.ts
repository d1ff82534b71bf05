import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import { runSkillsCli } from "./support/skills-cli.js";
import type { LocalStack } from "./support/local-stack.js";

/** API.md "Author's loop" over the local stack: usage counters after a mix of activations, trigger evals on save and on demand, version history and restore. */

const TENANT = "acme";
const P1 = "p1";

interface UsageRow {
  name: string;
  source: string | null;
  explicit: number;
  trigger: number;
  model: number;
  recipe: number;
  refused: number;
  refusedCodes: Record<string, number>;
}

let stack: LocalStack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] }));
  const seeded = [
    await api.putDocument(
      TENANT,
      P1,
      "_vance/recipes/mix.yaml",
      "engine: ford\nallowedSkills: [deploy, helper]\ndefaultActiveSkills: [helper]\n",
      "application/yaml",
    ),
    await api.putDocument(
      TENANT,
      P1,
      "_vance/skills/deploy/SKILL.md",
      skillMd("name: deploy\ndescription: Deploys.\ntriggers:\n  - type: KEYWORDS\n    keywords: [deploy]", "Deploy body."),
    ),
    await api.putDocument(TENANT, P1, "_vance/skills/helper/SKILL.md", skillMd("name: helper\ndescription: Helps.", "Helper body.")),
    await api.putDocument(
      TENANT,
      P1,
      "_vance/skills/outsider/SKILL.md",
      skillMd("name: outsider\ndescription: Not allowed.", "Outsider body."),
    ),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
});

afterAll(async () => {
  await stack?.close();
});

describe("usage counters over the local stack", () => {
  it("counts recipe, trigger, explicit, model and refused activations per skill, and nothing for a quiet turn", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "usage-session", { recipe: "mix", projectId: P1 });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;

    // Act
    await api.compose(TENANT, processId, { message: "nothing to trigger here" }, LANE_WAIT_SECONDS);
    await api.compose(TENANT, processId, { message: "please deploy" }, LANE_WAIT_SECONDS);
    await api.steer(TENANT, processId, { command: "CLEAR", skillName: "helper" }, LANE_WAIT_SECONDS);
    await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "helper" }, LANE_WAIT_SECONDS);
    await api.steer(TENANT, processId, { command: "CLEAR", skillName: "deploy" }, LANE_WAIT_SECONDS);
    const byModel = await api.tool(TENANT, processId, "skill_activate", { name: "deploy" });
    const refused = await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "outsider" }, LANE_WAIT_SECONDS);
    const usage = await api.send<{ usage: UsageRow[] }>("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}&days=7`);
    const badDays = await api.send("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}&days=9999`);
    const admin = api.as(await stack.token({ tenant: TENANT, login: "root", roles: ["tenant-admin"] }));
    const badProject = await admin.send("GET", `/brain/${TENANT}/skills/usage?projectId=${"%2F".repeat(700)}`);
    const stranger = await api
      .as(await stack.token({ tenant: TENANT, login: "eve", projects: ["other"] }))
      .send("GET", `/brain/${TENANT}/skills/usage?projectId=${P1}`);

    // Assess
    expect(byModel.status, byModel.text).toBe(200);
    expect(errorOf(refused)?.code).toBe("SKILL_NOT_ALLOWED");
    expect(usage.status, usage.text).toBe(200);
    const pick = (name: string) => {
      const row = usage.json.usage.find((r) => r.name === name);
      return (
        row && {
          source: row.source,
          explicit: row.explicit,
          trigger: row.trigger,
          model: row.model,
          recipe: row.recipe,
          refused: row.refused,
        }
      );
    };
    expect(pick("helper")).toEqual({ source: "PROJECT", explicit: 1, trigger: 0, model: 0, recipe: 1, refused: 0 });
    expect(pick("deploy")).toEqual({ source: "PROJECT", explicit: 0, trigger: 1, model: 1, recipe: 0, refused: 0 });
    expect(pick("outsider")).toEqual({ source: null, explicit: 0, trigger: 0, model: 0, recipe: 0, refused: 1 });
    expect(usage.json.usage.find((r) => r.name === "outsider")?.refusedCodes).toEqual({ SKILL_NOT_ALLOWED: 1 });
    expect(usage.json.usage.find((r) => r.name === "helper")?.refusedCodes).toEqual({});
    expect(badDays.status).toBe(400);
    expect(errorOf(badDays)?.code).toBe("INVALID_REQUEST");
    expect(stranger.status).toBe(403);
    expect(badProject.status, badProject.text).toBe(400);
    expect(errorOf(badProject)?.code).toBe("INVALID_REQUEST");
  });
});

describe("trigger evals over the local stack", () => {
  it("returns failing evals as warnings on save, refuses a malformed evals file, and runs them on demand", async () => {
    // Prepare
    const evalsPath = "_vance/skills/deploy/evals/triggers.yaml";

    // Act
    const saved = await api.putDocument(TENANT, P1, evalsPath, "should: [deploy now, ship it]\nshould-not: [hello]\n", "application/yaml");
    const malformed = await api.putDocument(
      TENANT,
      P1,
      evalsPath,
      `should:\n${Array.from({ length: 10_000 }, (_, i) => `  - m${i}`).join("\n")}\n`,
      "application/yaml",
    );
    const report = await api.send<{ name: string; precision: number; recall: number; cases: unknown[] }>(
      "GET",
      `/brain/${TENANT}/skills/effective/deploy/evals?projectId=${P1}`,
    );
    const none = await api.send("GET", `/brain/${TENANT}/skills/effective/helper/evals?projectId=${P1}`);

    // Assess
    expect(saved.status, saved.text).toBe(200);
    expect((saved.json as { warnings: { message: string }[] }).warnings.map((w) => w.message)).toContain(
      "should fire but did not: 'ship it'",
    );
    expect(malformed.status).toBe(422);
    expect(errorOf(malformed)?.code).toBe("INVALID_DOCUMENT");
    expect(report.status, report.text).toBe(200);
    expect(report.json).toMatchObject({ name: "deploy", precision: 1, recall: 0.5, totalCases: 3, incomplete: false });
    expect(report.json.cases).toHaveLength(3);
    expect(none.status).toBe(404);
    expect(errorOf(none)?.code).toBe("DOCUMENT_NOT_FOUND");
  });
});

describe("version history over the local stack", () => {
  const HISTORIAN = "_vance/skills/historian/SKILL.md";
  const documentUrl = (path: string, query = ""): string => `/brain/${TENANT}/projects/${P1}/documents/${path}${query}`;

  interface VersionRow {
    versionId: string;
    etag: string;
    lastModified: string;
    size: number;
    writtenBy?: string;
  }

  it("lists two PUTs newest first with who wrote them, and reads the older one", async () => {
    // Prepare
    const first = skillMd("name: historian\ndescription: Keeps history.", "Historian body one.");
    const second = skillMd("name: historian\ndescription: Keeps history.", "Historian body two.");
    expect((await api.putDocument(TENANT, P1, HISTORIAN, first)).status).toBe(200);
    const saved = await api.putDocument(TENANT, P1, HISTORIAN, second);
    const admin = api.as(await stack.token({ tenant: TENANT, login: "root", roles: ["tenant-admin"] }));

    // Act
    const listed = await admin.send<{ versions: VersionRow[] }>("GET", documentUrl(HISTORIAN, "?versions"));
    const older = await api.send(
      "GET",
      documentUrl(HISTORIAN, `?versionId=${encodeURIComponent(listed.json.versions[1]?.versionId ?? "")}`),
    );

    // Assess
    expect(listed.status, listed.text).toBe(200);
    const versions = listed.json.versions;
    expect(versions.map((v) => ({ size: v.size, writtenBy: v.writtenBy }))).toEqual([
      { size: Buffer.byteLength(second), writtenBy: "alice" },
      { size: Buffer.byteLength(first), writtenBy: "alice" },
    ]);
    expect(versions[0]!.etag).toBe((saved.json as { etag: string }).etag);
    expect(Date.parse(versions[0]!.lastModified)).toBeGreaterThanOrEqual(Date.parse(versions[1]!.lastModified));
    expect(older.status, older.text).toBe(200);
    expect(older.text).toBe(first);
  });

  it("restores an older SKILL.md as the newest version, and the next turn composes its old text", async () => {
    // Prepare
    const recipe = await api.putDocument(
      TENANT,
      P1,
      "_vance/recipes/history.yaml",
      "engine: ford\ndefaultActiveSkills: [historian]\n",
      "application/yaml",
    );
    expect(recipe.status, recipe.text).toBe(200);
    const spawned = await api.spawn(TENANT, "history-session", { recipe: "history", projectId: P1 });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;
    const before = await api.composition(TENANT, processId, "hello");
    const [, older] = (await api.send<{ versions: VersionRow[] }>("GET", documentUrl(HISTORIAN, "?versions"))).json.versions;
    const admin = api.as(await stack.token({ tenant: TENANT, login: "root", roles: ["tenant-admin"] }));

    // Act
    const restored = await admin.send<{ path: string; etag: string; warnings: unknown[] }>("POST", documentUrl(`${HISTORIAN}:restore`), {
      body: { versionId: older!.versionId },
    });
    const turn = await api.compose(TENANT, processId, { message: "hello" }, LANE_WAIT_SECONDS);
    const after = await api.send<{ versions: VersionRow[] }>("GET", documentUrl(HISTORIAN, "?versions"));

    // Assess
    expect(before.json.skillSection).toContain("Historian body two.");
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json).toMatchObject({ path: HISTORIAN, etag: older!.etag, warnings: expect.any(Array) });
    expect(turn.status, turn.text).toBe(200);
    expect(turn.json.result?.skillSection).toContain("Historian body one.");
    expect(turn.json.result?.skillSection).not.toContain("Historian body two.");
    expect(after.json.versions).toHaveLength(3);
    expect(after.json.versions[0]).toMatchObject({ etag: older!.etag, writtenBy: "root" });
  });

  it("refuses to restore a version that no longer validates (its name now collides), changing nothing", async () => {
    // Prepare: `Lint` was valid when saved; once `lint` exists on the level, a restored `Lint` would collide with it.
    const upper = "_vance/skills/Lint/SKILL.md";
    const lower = "_vance/skills/lint/SKILL.md";
    expect((await api.putDocument(TENANT, P1, upper, skillMd("description: Lints.", "Upper lint."))).status).toBe(200);
    const [version] = (await api.send<{ versions: VersionRow[] }>("GET", documentUrl(upper, "?versions"))).json.versions;
    expect((await api.deleteDocument(TENANT, P1, upper)).status).toBe(204);
    expect((await api.putDocument(TENANT, P1, lower, skillMd("description: Lints.", "Lower lint."))).status).toBe(200);

    // Act
    const refused = await api.send("POST", documentUrl(`${upper}:restore`), { body: { versionId: version!.versionId } });
    const upperNow = await api.getDocument(TENANT, P1, upper);
    const lowerNow = await api.getDocument(TENANT, P1, lower);
    const upperVersions = await api.send<{ versions: VersionRow[] }>("GET", documentUrl(upper, "?versions"));

    // Assess
    expect(refused.status, refused.text).toBe(422);
    expect(errorOf(refused)?.code).toBe("INVALID_DOCUMENT");
    expect(errorOf(refused)?.problems?.[0]?.message).toContain("collides with the skill 'lint'");
    expect(upperNow.status).toBe(404);
    expect(lowerNow.text).toContain("Lower lint.");
    expect(upperVersions.json.versions).toHaveLength(1);
  });

  it("answers 404 DOCUMENT_NOT_FOUND for a version the document does not have and 400 for a malformed versionId", async () => {
    // Act
    const missing = await api.send("POST", documentUrl(`${HISTORIAN}:restore`), { body: { versionId: "9999999999999-0000-000000" } });
    const missingRead = await api.send("GET", documentUrl(HISTORIAN, "?versionId=no-such-version"));
    const malformed = await api.send("POST", documentUrl(`${HISTORIAN}:restore`), { body: { versionId: "bad id" } });
    const malformedRead = await api.send("GET", documentUrl(HISTORIAN, "?versionId=bad%20id"));
    const badBody = await api.send("POST", documentUrl(`${HISTORIAN}:restore`), { body: { version: 1 } });
    const current = await api.getDocument(TENANT, P1, HISTORIAN);

    // Assess
    expect(missing.status, missing.text).toBe(404);
    expect(errorOf(missing)?.code).toBe("DOCUMENT_NOT_FOUND");
    expect(missingRead.status).toBe(404);
    expect(errorOf(missingRead)?.code).toBe("DOCUMENT_NOT_FOUND");
    expect(malformed.status).toBe(400);
    expect(errorOf(malformed)?.code).toBe("INVALID_REQUEST");
    expect(malformedRead.status).toBe(400);
    expect(badBody.status).toBe(400);
    expect(current.text).toContain("Historian body one.");
  });

  it("shows the history with its writers in `skills history`, and `skills restore` brings an older body back", async () => {
    // Prepare
    const token = await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] });
    const server = { url: stack.httpUrl, token };
    // Newest first: the restore by root (body one), then alice's body two, then alice's body one.
    const [, second] = (await api.send<{ versions: VersionRow[] }>("GET", documentUrl(HISTORIAN, "?versions"))).json.versions;

    // Act
    const history = await runSkillsCli(["history", `${TENANT}/${P1}`, "historian"], server);
    const restored = await runSkillsCli(["restore", `${TENANT}/${P1}`, "historian", second!.versionId], server);
    const current = await api.getDocument(TENANT, P1, HISTORIAN);

    // Assess
    expect(history.status, history.stderr).toBe(0);
    const lines = history.stdout.trim().split("\n");
    expect(lines.map((line) => line.split(/\s+/).at(-1))).toEqual(["root", "alice", "alice"]);
    expect(lines[1]).toContain(second!.versionId);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`restored ${HISTORIAN} to ${second!.versionId}`);
    expect(current.text).toContain("Historian body two.");
  });
});
