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
    expect(
      (await h.call("skills", { method: "GET", path: `/brain/acme/skills/active?processId=${base.split("/").pop()}` })).json.activeSkills,
    ).toEqual([]);
    expect(h.lane.size).toBe(1);
  });

  it("with Prefer: wait answers 200 DONE with the state right after the request", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();

    // Act
    const reply = await h.call("steer", {
      method: "POST",
      path: skillPath,
      headers: WAIT,
      body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-1" },
    });

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
    [
      "a skill outside the whitelist",
      "narrow",
      { command: "ACTIVATE", skillName: "beta" },
      403,
      "SKILL_NOT_ALLOWED",
      "Skill 'beta' is not allowed by recipe 'narrow'",
    ],
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
    const reply = await h.call("steer", {
      method: "POST",
      path: skillPath,
      headers: WAIT,
      body: { command: "ACTIVATE", skillName: "scoped" },
    });

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.json.error.code).toBe("SKILL_ARGUMENT_MISSING");
  });

  it("answers 202 QUEUED when the lane does not finish within the wait, after waiting that long", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const reply = await h.call("steer", {
      method: "POST",
      path: skillPath,
      headers: { prefer: "wait=3" },
      body: { command: "ACTIVATE", skillName: "alpha", requestId: "r-slow" },
    });

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
    const capped = await h.call("steer", {
      method: "POST",
      path: skillPath,
      headers: { prefer: "wait=600" },
      body: { command: "CLEAR_ALL" },
    });
    const nearDeadline = await h.call(
      "steer",
      { method: "POST", path: skillPath, headers: { prefer: "wait=20" }, body: { command: "CLEAR_ALL" } },
      { remainingMs: 1000 },
    );

    // Assess
    expect(capped.status).toBe(202);
    expect(capped.headers["preference-applied"]).toBe("wait=20");
    expect(nearDeadline.status).toBe(202);
    expect(nearDeadline.headers["preference-applied"]).toBeUndefined();
  });

  it("applies the same requestId once and answers the same result again; another payload under it is 409 REQUEST_CONFLICT", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    const body = { command: "ACTIVATE", skillName: "alpha", args: "first", requestId: "once" };

    // Act
    const first = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body });
    const again = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body });
    const otherArgs = await h.call("steer", { method: "POST", path: skillPath, headers: WAIT, body: { ...body, args: "second" } });
    const otherKind = await h.call("steer", { method: "POST", path: skillPath, body: { command: "CLEAR_ALL", requestId: "once" } });
    const withoutWait = await h.call("steer", { method: "POST", path: skillPath, body });

    // Assess
    expect(again.json).toEqual(first.json);
    expect(otherArgs).toMatchObject({ status: 409, json: { error: { code: "REQUEST_CONFLICT" } } });
    expect(otherKind).toMatchObject({ status: 409, json: { error: { code: "REQUEST_CONFLICT" } } });
    expect(withoutWait).toMatchObject({ status: 202, json: { requestId: "once", status: "DONE" } });
    expect(h.activations).toHaveLength(1);
  });

  it.each([
    ["an unknown command", { command: "EXPLODE" }],
    ["ACTIVATE without a skillName", { command: "ACTIVATE" }],
    ["a field of the wrong type", { command: "ACTIVATE", skillName: "alpha", oneShot: "yes" }],
    ["a body that is not JSON", "{"],
    ["a JSON string", '"ACTIVATE"'],
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
  ])("answers steering by a stranger with %s and enqueues nothing", async (_label, as, tenant, status, code) => {
    // Prepare
    const { h, skillPath } = await withProcess();

    // Act
    const reply = await h.call("steer", {
      method: "POST",
      path: skillPath.replace("/brain/acme/", `/brain/${tenant}/`),
      as,
      body: { command: "CLEAR_ALL" },
    });

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
    const waited = await h.call("steer", {
      method: "POST",
      path: `${base}/turns`,
      headers: WAIT,
      body: { message: "again", context: { tier: "large" } },
    });

    // Assess
    expect(queued.status).toBe(202);
    expect(queued.json).toEqual({ requestId: expect.any(String), status: "QUEUED", turnId: expect.any(String) });
    expect(waited.status).toBe(200);
    expect(waited.json).toMatchObject({ status: "DONE", turnId: expect.any(String) });
    expect(waited.json.result).toMatchObject({
      turnId: waited.json.turnId,
      systemPrompt: expect.any(Array),
      tools: expect.any(Array),
      toolSpecs: expect.any(Array),
    });
    expect(waited.json.result.messages.map((m: { text: string }) => m.text)).toEqual(["again"]);
  });

  it("counts skills a message triggers as trigger activations", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("reviewer", { extra: "triggers:\n  - type: KEYWORDS\n    keywords: [review]" });
    const process = await h.spawn();

    // Act
    const reply = await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/turns`,
      headers: WAIT,
      body: { message: "please review this" },
    });

    // Assess
    expect(reply.json.result.activeSkills).toEqual([expect.objectContaining({ name: "reviewer", oneShot: true })]);
    expect(h.activations).toEqual([{ name: "reviewer", path: "trigger" }]);
  });

  it("completes the turn in flight and answers its result", async () => {
    // Prepare
    const { h, base } = await withProcess();
    const composed = await h.call("steer", { method: "POST", path: `${base}/turns`, headers: WAIT, body: {} });

    // Act
    const reply = await h.call("steer", {
      method: "POST",
      path: `${base}/turns/${composed.json.turnId}/complete`,
      headers: WAIT,
      body: { output: "done", final: false },
    });

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
    const reply = await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      headers: WAIT,
      body: { command: "ACTIVATE", skillName: "review" },
    });
    await h.drain();

    // Assess
    expect(reply.json.result.spawned).toEqual({ processId: expect.any(String), name: "review-1" });
    expect(h.activations).toEqual([
      { name: "alpha", path: "recipe" },
      { name: "review", path: "spawn" },
    ]);
  });
});

describe("a process that ended (status DONE)", () => {
  it("answers 409 PROCESS_ENDED to steering, turns and completion at the door, and enqueues nothing", async () => {
    // Prepare
    const { h, base, skillPath } = await withProcess();
    const processId = base.split("/").at(-1)!;
    await h.processes.update("acme", processId, (cur) => ({ ...cur, status: "DONE" }));
    const queued = h.lane.size;

    // Act
    const steer = await h.call("steer", { method: "POST", path: skillPath, body: { command: "ACTIVATE", skillName: "alpha" } });
    const turn = await h.call("steer", { method: "POST", path: `${base}/turns`, body: { message: "hi" } });
    const complete = await h.call("steer", { method: "POST", path: `${base}/turns/t1/complete`, body: { output: "x" } });

    // Assess
    for (const reply of [steer, turn, complete]) expect(reply).toMatchObject({ status: 409, json: { error: { code: "PROCESS_ENDED" } } });
    expect(h.lane.size).toBe(queued);
  });
});

describe("Prefer: wait is limited per identity", () => {
  it("answers 429 TOO_MANY_REQUESTS with Retry-After past 8 concurrent waits of one identity; others wait as usual", async () => {
    // Prepare: the lane does not run, so every wait lasts until its deadline
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;
    const steer = (i: number) =>
      h.call("steer", {
        method: "POST",
        path: skillPath,
        headers: { prefer: "wait=2" },
        body: { command: "ACTIVATE", skillName: "alpha", requestId: `w-${i}` },
      });

    // Act
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => steer(i)));

    // Assess
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(2);
    for (const reply of limited) {
      expect(reply.json.error.code).toBe("TOO_MANY_REQUESTS");
      expect(reply.headers["retry-after"]).toBe("1");
    }
    expect(replies.filter((r) => r.status === 202).map((r) => r.json.status)).toEqual(Array(8).fill("QUEUED"));
  });

  it("gives the slots back when the waits end", async () => {
    // Prepare
    const { h, skillPath } = await withProcess();
    h.control.laneRunsWhileWaiting = false;
    const steer = (i: number) =>
      h.call("steer", {
        method: "POST",
        path: skillPath,
        headers: { prefer: "wait=1" },
        body: { command: "ACTIVATE", skillName: "alpha", requestId: `g-${i}` },
      });
    await Promise.all(Array.from({ length: 8 }, (_, i) => steer(i)));

    // Act
    const later = await steer(99);

    // Assess
    expect(later.status).toBe(202);
  });
});
