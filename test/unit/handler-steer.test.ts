import { describe, expect, it } from "vitest";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness } from "../support/handler-harness.js";
import type { HandlerHarness } from "../support/handler-harness.js";

const WAIT = { prefer: "wait=5" };

async function withProcess(recipe = "open"): Promise<{ h: HandlerHarness; skillPath: string; base: string }> {
  const h = await handlerHarness();
  await h.putSkill("alpha");
  const process = await h.spawn(recipe);
  const base = `/brain/acme/processes/${process.processId}`;
  return { h, base, skillPath: `${base}/skill` };
}

describe("POST …/skill", () => {
  it("answers 202 QUEUED without Prefer and applies nothing before the lane runs", async () => {
    // Prepare
    const { h, skillPath, base } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, body: { command: "ACTIVATE", skillName: "alpha" } });

    // Assess
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({ requestId: expect.any(String), status: "QUEUED" });
    expect((await h.call("skills", { method: "GET", path: `/brain/acme/skills/active?processId=${base.split("/").pop()}` })).json.activeSkills).toEqual([]);
    expect(h.lane.size).toBe(1);
  });

  it("with Prefer: wait answers 200 DONE with the state right after the request", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-1" } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      requestId: "r-1",
      status: "DONE",
      result: { activeSkills: [expect.objectContaining({ name: "alpha", oneShot: false, fromRecipe: false })], turnScheduled: false },
    });
    expect(reply.headers["preference-applied"]).toBe("wait=5");
    expect(h.activations).toEqual([{ name: "alpha", path: "explicit" }]);
  });

  it.each([
    ["an unknown skill", "open", { command: "ACTIVATE", skillName: "ghost" }, 404, "SKILL_NOT_FOUND", "Skill 'ghost' not found"],
    ["a skill outside the whitelist", "narrow", { command: "ACTIVATE", skillName: "beta" }, 403, "SKILL_NOT_ALLOWED", "Skill 'beta' is not allowed by recipe 'narrow'"],
    ["clearing a locked recipe's skill", "locked", { command: "CLEAR", skillName: "alpha" }, 409, "SKILL_LOCKED", undefined],
  ])("with Prefer: wait answers the lane's error for %s", async (_label, recipe, body, status, code, message) => {
    // Prepare
    const { h, skillPath } = await withProcess(recipe);
    await h.putSkill("beta");

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { ...body, requestId: "r-err" } });

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.json).toEqual({ error: { code, message: message ?? expect.any(String) } });
    expect(reply.headers["skills-request-id"]).toBe("r-err");
  });

  it("with Prefer: wait answers 422 SKILL_ARGUMENT_MISSING for a required argument without a token", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    await h.putSkill("scoped", { extra: "arguments:\n  - name: scope\n    required: true" });

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { command: "ACTIVATE", skillName: "scoped" } });

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.json.error.code).toBe("SKILL_ARGUMENT_MISSING");
  });

  it("answers 202 QUEUED when the lane does not finish within the wait, after waiting that long", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: { prefer: "wait=3" }, body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-slow" } });

    // Assess
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({ requestId: "r-slow", status: "QUEUED" });
    expect(h.control.sleeps).toBeGreaterThan(1);
    expect(h.control.waitedMs).toBe(3000);
  });

  it("caps the wait at 20 s and at what Lambda has left, then answers 202", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const capped = await h.call("steer", { method: "POST", path: skillPath, headers: { prefer: "wait=600" }, body: { command: "CLEAR_ALL" } });
    const nearDeadline = await h.call("steer", { method: "POST", path: skillPath, headers: { prefer: "wait=20" }, body: { command: "CLEAR_ALL" } }, { remainingMs: 1000 });

    // Assess
    expect(capped.status).toBe(202);
    expect(capped.headers["preference-applied"]).toBe("wait=20");
    expect(nearDeadline.status).toBe(202);
    expect(nearDeadline.headers["preference-applied"]).toBeUndefined();
  });

  it("applies the same requestId once and answers the same result again", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    const body = { command: "ACTIVATE", skillName: "alpha", args: "first", requestId: "once" };

    // Act
    const first = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body });
    const second = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { requestId: "once", args: "first", skillName: "alpha", command: "ACTIVATE" } });
    const withoutWait = await h.call("steer", { method: "POST", path: skillPath, body });

    // Assess
    expect(second.json).toEqual(first.json);
    expect(withoutWait).toMatchObject({ status: 202, json: { requestId: "once", status: "DONE" } });
    expect(h.activations).toHaveLength(1);
  });

  it.each([
    ["another payload", { command: "ACTIVATE", skillName: "alpha", args: "second" }],
    ["another skill", { command: "ACTIVATE", skillName: "beta" }],
    ["oneShot added", { command: "ACTIVATE", skillName: "alpha", args: "first", oneShot: true }],
    ["another command", { command: "CLEAR", skillName: "alpha" }],
    ["CLEAR_ALL", { command: "CLEAR_ALL" }],
  ])("answers a reused requestId with %s as 409 REQUEST_CONFLICT, never the first result", async (_label, reuse) => {
    // Prepare
    const { h, skillPath, base } = await withProcess();
    await h.putSkill("beta");
    await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { command: "ACTIVATE", skillName: "alpha", args: "first", requestId: "once" } });

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { ...reuse, requestId: "once" } });

    // Assess
    expect(reply.status).toBe(409);
    expect(reply.json.error.code).toBe("REQUEST_CONFLICT");
    expect(JSON.stringify(reply.json)).not.toContain("activeSkills");
    const process = await h.call("processes", { method: "GET", path: base });
    expect(process.json.activeSkills.map((s: { name: string }) => s.name)).toEqual(["alpha"]);
  });

  it("answers a skill requestId reused for a turn (and a turn's for a skill) with 409 REQUEST_CONFLICT", async () => {
    // Prepare
    const { h, skillPath, base } = await withProcess();
    await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { command: "ACTIVATE", skillName: "alpha", requestId: "skill-1" } });
    await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: { message: "hi", requestId: "turn-1" } });

    // Act
    const turnWithSkillId = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: { message: "hi", requestId: "skill-1" } });
    const skillWithTurnId = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { command: "CLEAR_ALL", requestId: "turn-1" } });
    const turnRetry = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: { message: "hi", requestId: "turn-1" } });
    const turnOtherMessage = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: { message: "bye", requestId: "turn-1" } });

    // Assess
    expect([turnWithSkillId.status, turnWithSkillId.json.error?.code]).toEqual([409, "REQUEST_CONFLICT"]);
    expect([skillWithTurnId.status, skillWithTurnId.json.error?.code]).toEqual([409, "REQUEST_CONFLICT"]);
    expect(turnRetry.status).toBe(200);
    expect([turnOtherMessage.status, turnOtherMessage.json.error?.code]).toEqual([409, "REQUEST_CONFLICT"]);
  });

  it("scopes requestIds to their process: the same id on another process is a request of its own", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    const other = await h.spawn();
    const body = { command: "ACTIVATE", skillName: "alpha", requestId: "shared-id" };
    await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body });

    // Act
    const reply = await h.call("steer", { method: "POST", path: `/brain/acme/processes/${other.processId}/skill`, headers: WAIT, body: { command: "CLEAR_ALL", requestId: "shared-id" } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ requestId: "shared-id", status: "DONE", result: { activeSkills: [] } });
    const status = await h.call("processes", { method: "GET", path: `/brain/acme/processes/${other.processId}/requests/shared-id` });
    expect(status.json).toMatchObject({ status: "DONE", result: { activeSkills: [] } });
  });

  describe("on a process that ended (status DONE)", () => {
    async function endedProcess() {
      const t = await withProcess();
      const composed = await t.h.call("steer", { method: "POST", path: `${t.base}/turns`, headers: WAIT, body: { message: "go", requestId: "c-1" } });
      const final = await t.h.call("steer", { method: "POST", path: `${t.base}/turns/${composed.json.turnId}/complete`, headers: WAIT, body: { output: "done", final: true, requestId: "f-1" } });
      expect(final.json.result.status).toBe("DONE");
      return { ...t, turnId: composed.json.turnId as string, final };
    }

    it.each([
      ["ACTIVATE", "skill", { command: "ACTIVATE", skillName: "alpha" }],
      ["CLEAR", "skill", { command: "CLEAR", skillName: "alpha" }],
      ["CLEAR_ALL", "skill", { command: "CLEAR_ALL" }],
      ["a new turn", "turns", { message: "again" }],
    ])("refuses %s with 409 PROCESS_ENDED, with and without Prefer: wait", async (_label, route, body) => {
      // Prepare
      const { h, base } = await endedProcess();

      // Act
      const waited = await h.call("steer", { method: "POST", path: `${base}/${route}`, headers: WAIT, body });
      const queued = await h.call("steer", { method: "POST", path: `${base}/${route}`, body });

      // Assess
      for (const reply of [waited, queued]) {
        expect(reply.status).toBe(409);
        expect(reply.json.error.code).toBe("PROCESS_ENDED");
      }
    });

    it("refuses completing the turn again with 409 PROCESS_ENDED, but answers a retry of the final completion from its record", async () => {
      // Prepare
      const { h, base, turnId, final } = await endedProcess();

      // Act
      const again = await h.call("steer", { method: "POST", path: `${base}/turns/${turnId}/complete`, headers: WAIT, body: { output: "more" } });
      const retry = await h.call("steer", { method: "POST", path: `${base}/turns/${turnId}/complete`, headers: WAIT, body: { output: "done", final: true, requestId: "f-1" } });

      // Assess
      expect([again.status, again.json.error?.code]).toEqual([409, "PROCESS_ENDED"]);
      expect(retry.status).toBe(200);
      expect(retry.json).toEqual(final.json);
    });
  });

  it.each([
    ["an unknown command", { command: "EXPLODE" }],
    ["ACTIVATE without a skillName", { command: "ACTIVATE" }],
    ["a field of the wrong type", { command: "ACTIVATE", skillName: "alpha", oneShot: "yes" }],
    ["a body that is not JSON", "{"],
    ["a JSON string", "\"ACTIVATE\""],
    ["a control character in the requestId", { command: "CLEAR_ALL", requestId: "a\u0000b" }],
  ])("answers 400 INVALID_REQUEST for %s and enqueues nothing", async (_label, body) => {
    // Prepare
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(h.lane.size).toBe(0);
  });

  it.each([
    ["404 PROCESS_NOT_FOUND to another tenant", IDENTITIES.eve, "globex", 404, "PROCESS_NOT_FOUND"],
    ["403 FORBIDDEN to a non-member", IDENTITIES.mallory, "acme", 403, "FORBIDDEN"],
    ["403 FORBIDDEN to another member of the project (the process is alice's)", IDENTITIES.bob, "acme", 403, "FORBIDDEN"],
    ["403 FORBIDDEN to the project's admin", IDENTITIES.padmin, "acme", 403, "FORBIDDEN"],
    ["403 FORBIDDEN to a tenant-admin", IDENTITIES.admin, "acme", 403, "FORBIDDEN"],
  ])("answers steering by a stranger with %s and enqueues nothing", async (_label, as, tenant, status, code) => {
    // Prepare
    const { h, skillPath } = await withProcess();

    // Act
    const reply = await h.call("steer", { method: "POST", path: skillPath.replace("/brain/acme/", `/brain/${tenant}/`), as, body: { command: "CLEAR_ALL" } });

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.json.error.code).toBe(code);
    expect(h.lane.size).toBe(0);
  });

  it("answers 404 PROCESS_NOT_FOUND for an unknown process", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("steer", { method: "POST", path: "/brain/acme/processes/nope/skill", body: { command: "CLEAR_ALL" } });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("PROCESS_NOT_FOUND");
  });
});

describe("POST …/turns and …/turns/{turnId}/complete", () => {
  it("composes a turn (202 with its turnId), then waits for it (200 with the Turn)", async () => {
    // Prepare
    const { h, base } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const queued = await h.call("steer", { method: "POST", path: `${base}/turns`, body: { message: "hi" } });
    h.control.laneRunsWhileWaiting = true;
    const waited = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: { message: "again", context: { tier: "large" } } });

    // Assess
    expect(queued.status).toBe(202);
    expect(queued.json).toEqual({ requestId: expect.any(String), status: "QUEUED", turnId: expect.any(String) });
    expect(waited.status).toBe(200);
    expect(waited.json).toMatchObject({ status: "DONE", turnId: expect.any(String) });
    expect(waited.json.result).toMatchObject({ turnId: waited.json.turnId, systemPrompt: expect.any(Array), tools: expect.any(Array), toolSpecs: expect.any(Array) });
    expect(waited.json.result.messages.map((m: { text: string }) => m.text)).toEqual(["again"]);
  });

  it("counts skills a message triggers as trigger activations", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("reviewer", { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [review]" });
    const process = await h.spawn();

    // Act
    const reply = await h.call("steer", { method: "POST", path: `/brain/acme/processes/${process.processId}/turns`, headers: WAIT, body: { message: "please review this" } });

    // Assess
    expect(reply.json.result.activeSkills).toEqual([expect.objectContaining({ name: "reviewer", oneShot: true })]);
    expect(h.activations).toEqual([{ name: "reviewer", path: "trigger" }]);
  });

  it("completes the turn in flight and answers its result", async () => {
    // Prepare
    const { h, base } = await withProcess();
    const composed = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: {} });

    // Act
    const reply = await h.call("steer", { method: "POST", path: `${base}/turns/${composed.json.turnId}/complete`, headers: WAIT, body: { output: "done", final: false } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.result).toMatchObject({ activeSkills: [], cleared: [], status: "ACTIVE", turnScheduled: false });
  });

  it.each([
    ["an unknown field", { message: "x", user: "ada" }],
    ["a message that is not text", { message: 42 }],
    ["an unknown context field", { context: { secret: "x" } }],
  ])("answers 400 for a compose body with %s", async (_label, body) => {
    // Prepare
    const { h, base } = await withProcess();

    // Act
    const reply = await h.call("steer", { method: "POST", path: `${base}/turns`, body });

    // Assess
    expect(reply.status).toBe(400);
    expect(h.lane.size).toBe(0);
  });

  it("answers 400 for a completion without output", async () => {
    // Prepare
    const { h, base } = await withProcess();

    // Act
    const reply = await h.call("steer", { method: "POST", path: `${base}/turns/t-1/complete`, body: { final: true } });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.message).toMatch(/output/);
  });
});

describe("spawn activations", () => {
  it("counts a run: spawn skill as a spawn activation in the worker, its recipe's skills as recipe, not as explicit", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    await h.putSkill("review", { extra: "run:\n  target: spawn\n  recipe: locked\naction: Review now." });
    const process = await h.spawn();

    // Act
    const reply = await h.call("steer", { method: "POST", path: `/brain/acme/processes/${process.processId}/skill`, headers: WAIT, body: { command: "ACTIVATE", skillName: "review" } });
    await h.drain();

    // Assess
    expect(reply.json.result.spawned).toEqual({ processId: expect.any(String), name: "review-1" });
    expect(h.activations).toEqual([
      { name: "alpha", path: "recipe" },
      { name: "review", path: "spawn" },
    ]);
  });
});
