import { describe, expect, it } from "vitest";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness, PROJECT } from "../support/handler-harness.js";
import type { HandlerHarness } from "../support/handler-harness.js";

const PROCESS_FIELDS = [
  "activeSkills",
  "allowedSkillsOverride",
  "children",
  "guard",
  "locked",
  "name",
  "parentProcessId",
  "pending",
  "processId",
  "projectId",
  "recipe",
  "sessionId",
  "status",
  "version",
];

const spawnPath = "/brain/acme/sessions/s1/processes";

describe("POST /brain/{tenant}/sessions/{sessionId}/processes", () => {
  it("answers 201 with the Process, recipe defaults sticky and fromRecipe, allowedSkills snapshotted", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");

    // Act
    const reply = await h.call("processes", {
      method: "POST",
      path: spawnPath,
      body: { recipe: "whitelist", projectId: PROJECT, name: "main" },
    });

    // Assess
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(PROCESS_FIELDS);
    expect(reply.json).toMatchObject({
      sessionId: "s1",
      name: "main",
      recipe: "whitelist",
      projectId: PROJECT,
      allowedSkillsOverride: ["alpha", "beta", "gamma"],
      locked: false,
      pending: [],
      guard: null,
      parentProcessId: null,
      children: [],
      status: "ACTIVE",
      version: 1,
    });
    expect(reply.json.activeSkills).toEqual([expect.objectContaining({ name: "alpha", fromRecipe: true, oneShot: false })]);
    expect(reply.headers.location).toBe(`/brain/acme/processes/${reply.json.processId}`);
    expect(h.activations).toEqual([{ name: "alpha", path: "recipe" }]);
  });

  it("records the caller from the token, not from the body", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("processes", {
      method: "POST",
      path: spawnPath,
      as: IDENTITIES.bob,
      body: { recipe: "open", projectId: PROJECT },
    });

    // Assess
    expect(reply.status).toBe(201);
    expect((await h.processes.get("acme", reply.json.processId))?.userId).toBe("bob");
  });

  it("answers 409 NAME_TAKEN for a name already used in the session", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.call("processes", { method: "POST", path: spawnPath, body: { recipe: "open", projectId: PROJECT, name: "dup" } });

    // Act
    const reply = await h.call("processes", { method: "POST", path: spawnPath, body: { recipe: "open", projectId: PROJECT, name: "dup" } });

    // Assess
    expect(reply.status).toBe(409);
    expect(reply.json.error.code).toBe("NAME_TAKEN");
  });

  it("answers 404 RECIPE_NOT_FOUND for an unknown recipe", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("processes", { method: "POST", path: spawnPath, body: { recipe: "nope", projectId: PROJECT } });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("RECIPE_NOT_FOUND");
  });

  it.each([
    ["403 to a non-member of the project", IDENTITIES.mallory, "acme", 403],
    ["403 to another tenant", IDENTITIES.eve, "acme", 403],
    ["201 to a tenant-admin", IDENTITIES.admin, "acme", 201],
    ["201 to the project's admin", IDENTITIES.padmin, "acme", 201],
  ])("answers a spawn in proj1 with %s", async (_label, as, tenant, status) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("processes", {
      method: "POST",
      path: `/brain/${tenant}/sessions/s1/processes`,
      as,
      body: { recipe: "open", projectId: PROJECT },
    });

    // Assess
    expect(reply.status).toBe(status);
    if (status === 403) expect(reply.json.error.code).toBe("FORBIDDEN");
  });

  it.each([
    ["a body that is not JSON", "{recipe:"],
    ["an empty body", undefined],
    ["a JSON array", [1, 2]],
    ["a wrong field type", { recipe: 7, projectId: PROJECT }],
    ["an unknown field", { recipe: "open", projectId: PROJECT, userId: "ada" }],
    ["a reserved project name", { recipe: "open", projectId: "_tenant" }],
  ])("answers 4xx (never 5xx) for %s and creates nothing", async (_label, body) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("processes", { method: "POST", path: spawnPath, body });

    // Assess
    expect([400, 403]).toContain(reply.status);
    expect(reply.json.error.code).toMatch(/INVALID_REQUEST|FORBIDDEN/);
    expect(await h.processes.get("acme", "p001")).toBeUndefined();
  });

  it("answers 400 for a body that is not valid base64 when flagged as such", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.invoke("processes", {
      rawPath: spawnPath,
      requestContext: {
        http: { method: "POST" },
        authorizer: { lambda: { login: "alice", tenant: "acme", projects: '["proj1"]', roles: "[]" } },
      },
      body: "!!!not base64!!!",
      isBase64Encoded: true,
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.message).toMatch(/base64/);
  });
});

describe("GET /brain/{tenant}/processes/{processId}", () => {
  it("answers the Process to its owner", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();

    // Act
    const reply = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${process.processId}` });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ processId: process.processId, recipe: "open", version: 1 });
    expect(reply.json).not.toHaveProperty("tenant");
    expect(reply.json).not.toHaveProperty("appliedRequests");
  });

  it.each([
    ["404 to another tenant (as if unknown)", IDENTITIES.eve, "globex", 404, "PROCESS_NOT_FOUND"],
    ["403 to a non-member", IDENTITIES.mallory, "acme", 403, "FORBIDDEN"],
    ["403 to another member of the project (the process belongs to its user)", IDENTITIES.bob, "acme", 403, "FORBIDDEN"],
    ["200 to a tenant-admin", IDENTITIES.admin, "acme", 200, undefined],
  ])("answers a process read with %s", async (_label, as, tenant, status, code) => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();

    // Act
    const reply = await h.call("processes", { method: "GET", path: `/brain/${tenant}/processes/${process.processId}`, as });

    // Assess
    expect(reply.status).toBe(status);
    if (code) expect(reply.json.error.code).toBe(code);
  });

  it("answers 404 for an unknown or implausible id", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const unknown = await h.call("processes", { method: "GET", path: "/brain/acme/processes/nope" });
    const huge = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${"x".repeat(300)}` });

    // Assess
    expect(unknown.status).toBe(404);
    expect(huge.status).toBe(404);
    expect(huge.json.error.code).toBe("PROCESS_NOT_FOUND");
  });
});

describe("GET /brain/{tenant}/processes/{processId}/requests/{requestId}", () => {
  it("answers QUEUED, then DONE with the result once the lane applied it", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    const process = await h.spawn();
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-1" },
    });
    const path = `/brain/acme/processes/${process.processId}/requests/r-1`;

    // Act
    const queued = await h.call("processes", { method: "GET", path });
    await h.drain();
    const done = await h.call("processes", { method: "GET", path });

    // Assess
    expect(queued.json).toEqual({ requestId: "r-1", status: "QUEUED" });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({
      requestId: "r-1",
      status: "DONE",
      result: { activeSkills: [expect.objectContaining({ name: "alpha" })], turnScheduled: false },
    });
  });

  it("answers FAILED with the error of a request the lane refused", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      body: { command: "ACTIVATE", skillName: "ghost", requestId: "r-2" },
    });
    await h.drain();

    // Act
    const reply = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${process.processId}/requests/r-2` });

    // Assess
    expect(reply.json).toEqual({
      requestId: "r-2",
      status: "FAILED",
      error: { code: "SKILL_NOT_FOUND", message: "Skill 'ghost' not found" },
    });
  });

  it("answers 404 REQUEST_NOT_FOUND for an unknown requestId and for one of another process", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    const first = await h.spawn();
    const second = await h.spawn();
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${first.processId}/skill`,
      body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-3" },
    });

    // Act
    const unknown = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${first.processId}/requests/nope` });
    const foreign = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${second.processId}/requests/r-3` });

    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("REQUEST_NOT_FOUND");
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe("REQUEST_NOT_FOUND");
  });

  it("answers 404 PROCESS_NOT_FOUND to another tenant asking for a real request", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      body: { command: "CLEAR_ALL", requestId: "r-4" },
    });

    // Act
    const reply = await h.call("processes", {
      method: "GET",
      path: `/brain/globex/processes/${process.processId}/requests/r-4`,
      as: IDENTITIES.eve,
    });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("PROCESS_NOT_FOUND");
  });
});

describe("GET /brain/{tenant}/processes/{processId}/composition", () => {
  it("answers the Turn itself (not wrapped) and changes nothing", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha", { body: "Alpha body." });
    const process = await h.spawn("locked");

    // Act
    const reply = await h.call("processes", {
      method: "GET",
      path: `/brain/acme/processes/${process.processId}/composition?message=hello%20there&tier=large`,
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      turnId: "preview",
      skillSection: expect.stringContaining("Alpha body."),
      tools: expect.any(Array),
      toolSpecs: expect.any(Array),
      manualPaths: [],
      activeSkills: [expect.objectContaining({ name: "alpha" })],
    });
    expect(reply.json.systemPrompt[0].role).toBe("system");
    expect(reply.json.messages).toEqual([expect.objectContaining({ role: "user", text: "hello there", sender: "alice" })]);
    expect((await h.processes.get("acme", process.processId))?.version).toBe(process.version);
  });

  it("answers 400 for an invalid turn context", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();

    // Act
    const reply = await h.call("processes", {
      method: "GET",
      path: `/brain/acme/processes/${process.processId}/composition?tier=${"x".repeat(200)}`,
    });

    // Assess
    expect(reply.status).toBe(400);
  });

  it("refuses a non-member with 403", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();

    // Act
    const reply = await h.call("processes", {
      method: "GET",
      path: `/brain/acme/processes/${process.processId}/composition`,
      as: IDENTITIES.mallory,
    });

    // Assess
    expect(reply.status).toBe(403);
  });
});

describe("sessions are per user (API.md second round)", () => {
  const sessionPath = "/brain/acme/sessions/s1/processes";
  const spawnAs = (h: HandlerHarness, as: (typeof IDENTITIES)[keyof typeof IDENTITIES], name?: string, session = sessionPath) =>
    h.call("processes", { method: "POST", path: session, as, body: { recipe: "open", projectId: PROJECT, ...(name ? { name } : {}) } });

  it("lets two users use the same session id and process name without NAME_TAKEN", async () => {
    // Prepare
    const h = await handlerHarness();
    const alices = await spawnAs(h, IDENTITIES.alice, "chat");

    // Act
    const bobs = await spawnAs(h, IDENTITIES.bob, "chat");
    const bobsAgain = await spawnAs(h, IDENTITIES.bob, "chat");

    // Assess
    expect(alices.status).toBe(201);
    expect(bobs.status).toBe(201);
    expect(bobs.json.processId).not.toBe(alices.json.processId);
    expect([bobsAgain.status, bobsAgain.json.error?.code]).toEqual([409, "NAME_TAKEN"]);
  });

  it("numbers automatic names per user: each user's first process of a recipe is <recipe>-1", async () => {
    // Prepare
    const h = await handlerHarness();
    await spawnAs(h, IDENTITIES.alice);

    // Act
    const bobs = await spawnAs(h, IDENTITIES.bob);

    // Assess
    expect(bobs.json.name).toBe("open-1");
  });

  it("lists only the caller's own processes of the session, oldest first", async () => {
    // Prepare
    const h = await handlerHarness();
    const first = await spawnAs(h, IDENTITIES.alice, "one");
    const second = await spawnAs(h, IDENTITIES.alice, "two");
    await spawnAs(h, IDENTITIES.bob, "bobs");
    await spawnAs(h, IDENTITIES.alice, "elsewhere", "/brain/acme/sessions/s2/processes");

    // Act
    const alices = await h.call("processes", { method: "GET", path: sessionPath });
    const bobs = await h.call("processes", { method: "GET", path: sessionPath, as: IDENTITIES.bob });
    const admins = await h.call("processes", { method: "GET", path: sessionPath, as: IDENTITIES.admin });
    const empty = await h.call("processes", { method: "GET", path: "/brain/acme/sessions/nothing-here/processes" });

    // Assess
    expect(alices.status).toBe(200);
    expect(alices.json.processes.map((p: { processId: string }) => p.processId)).toEqual([first.json.processId, second.json.processId]);
    expect(alices.json.processes[0]).toEqual(first.json);
    expect(bobs.json.processes.map((p: { name: string }) => p.name)).toEqual(["bobs"]);
    expect(admins.json).toEqual({ processes: [] });
    expect(empty.json).toEqual({ processes: [] });
  });

  it("answers another tenant's path with 403 and a malformed session id with 400", async () => {
    // Prepare
    const h = await handlerHarness();
    await spawnAs(h, IDENTITIES.alice, "one");

    // Act
    const foreign = await h.call("processes", { method: "GET", path: sessionPath.replace("/acme/", "/globex/") });
    const tooLong = await h.call("processes", { method: "GET", path: `/brain/acme/sessions/${"s".repeat(200)}/processes` });

    // Assess
    expect(foreign.status).toBe(403);
    expect([tooLong.status, tooLong.json.error.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("leaves out a process of a project the caller no longer belongs to", async () => {
    // Prepare
    const h = await handlerHarness();
    await spawnAs(h, IDENTITIES.alice, "one");
    const formerMember = { ...IDENTITIES.alice, projects: [] };

    // Act
    const reply = await h.call("processes", { method: "GET", path: sessionPath, as: formerMember });

    // Assess
    expect(reply.json).toEqual({ processes: [] });
  });
});

describe("concurrent spawns are capped per identity (hardening)", () => {
  const spawnAs = (h: HandlerHarness, as: (typeof IDENTITIES)[keyof typeof IDENTITIES]) =>
    h.call("processes", { method: "POST", path: "/brain/acme/sessions/s1/processes", as, body: { recipe: "open", projectId: PROJECT } });

  it("answers 429 TOO_MANY_REQUESTS with Retry-After past 4 spawns in flight for one user, and never to another user", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act: alice fires 12 at once while bob spawns too
    const [alices, bobs] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, () => spawnAs(h, IDENTITIES.alice))),
      Promise.all(Array.from({ length: 3 }, () => spawnAs(h, IDENTITIES.bob))),
    ]);

    // Assess
    const limited = alices.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(alices.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(4);
    expect(alices.every((r) => r.status === 201 || r.status === 429)).toBe(true);
    for (const reply of limited) expect([reply.json.error.code, reply.headers["retry-after"]]).toEqual(["TOO_MANY_REQUESTS", "1"]);
    expect(bobs.map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it("gives the slot back when a spawn ends, failed or not", async () => {
    // Prepare: more spawns one after another than the cap, one of them refused
    const h = await handlerHarness();
    const refused = await h.call("processes", {
      method: "POST",
      path: "/brain/acme/sessions/s1/processes",
      body: { recipe: "no-such-recipe", projectId: PROJECT },
    });

    // Act
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await spawnAs(h, IDENTITIES.alice));

    // Assess
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(201));
  });
});

describe("GET /brain/{tenant}/processes/{processId}/turns/{turnId}", () => {
  const composeWaited = async (h: HandlerHarness, processId: string, body: Record<string, unknown>) => {
    const accepted = await h.call("steer", { method: "POST", path: `/brain/acme/processes/${processId}/turns`, body });
    await h.drain();
    return accepted.json.turnId as string;
  };

  it("answers the Turn as it was composed, activation included", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("deploy", { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy]" });
    const process = await h.spawn();
    const turnId = await composeWaited(h, process.processId, { message: "deploy it", requestId: "compose 1" });

    // Act
    const reply = await h.call("processes", {
      method: "GET",
      path: `/brain/acme/processes/${process.processId}/turns/${encodeURIComponent(turnId)}`,
    });
    const record = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${process.processId}/requests/compose%201` });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(record.json.result);
    expect(reply.json).toMatchObject({
      turnId,
      activation: [{ name: "deploy", outcome: "activated", activatedBy: "trigger", trigger: { type: "KEYWORDS", index: 0 } }],
    });
  });

  it("answers 404 REQUEST_NOT_FOUND for an unknown turn, one not composed yet, and a request that is not a compose", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    const process = await h.spawn();
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-1" },
    });
    const queued = await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/turns`,
      body: { message: "hi" },
    });
    const base = `/brain/acme/processes/${process.processId}/turns`;

    // Act
    const notYet = await h.call("processes", { method: "GET", path: `${base}/${queued.json.turnId}` });
    await h.drain();
    const unknown = await h.call("processes", { method: "GET", path: `${base}/nope` });
    const notACompose = await h.call("processes", { method: "GET", path: `${base}/r-1` });
    const tooLong = await h.call("processes", { method: "GET", path: `${base}/${"a".repeat(2000)}` });

    // Assess
    for (const reply of [notYet, unknown, notACompose, tooLong]) {
      expect(reply.status).toBe(404);
      expect(reply.json.error.code).toBe("REQUEST_NOT_FOUND");
    }
  });

  it("is for the process's owner: another user of the project gets 403, another tenant 404 PROCESS_NOT_FOUND", async () => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();
    const turnId = await composeWaited(h, process.processId, { message: "hi" });
    const path = `/brain/acme/processes/${process.processId}/turns/${turnId}`;

    // Act
    const bob = await h.call("processes", { method: "GET", path, as: IDENTITIES.bob });
    const eve = await h.call("processes", {
      method: "GET",
      path: `/brain/globex/processes/${process.processId}/turns/${turnId}`,
      as: IDENTITIES.eve,
    });

    // Assess
    expect(bob.status).toBe(403);
    expect(bob.json.error.code).toBe("FORBIDDEN");
    expect(eve.status).toBe(404);
    expect(eve.json.error.code).toBe("PROCESS_NOT_FOUND");
  });
});

describe("GET …/composition?explain=all", () => {
  it("adds the skills with triggers that did not match; another explain value is 400", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("deploy", { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy]" });
    await h.putSkill("quiet", { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [rollback]" });
    const process = await h.spawn();
    const path = `/brain/acme/processes/${process.processId}/composition?message=deploy`;

    // Act
    const explained = await h.call("processes", { method: "GET", path: `${path}&explain=all` });
    const plain = await h.call("processes", { method: "GET", path });
    const bad = await h.call("processes", { method: "GET", path: `${path}&explain=some` });

    // Assess
    expect(explained.json.activation).toEqual([
      expect.objectContaining({ name: "deploy", outcome: "activated" }),
      { name: "quiet", outcome: "not-matched" },
    ]);
    expect(plain.json.activation).toEqual([expect.objectContaining({ name: "deploy", outcome: "activated" })]);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("INVALID_REQUEST");
  });
});
