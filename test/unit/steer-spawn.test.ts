import { describe, expect, it } from "vitest";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import type { RequestStore } from "../../shared/processes/request-store.js";
import type { ActivateResult } from "../../shared/steering/steer-context.js";
import { ALICE, BOB, names, SESSION, steeringHarness, TENANT } from "../support/steering-harness.js";
import type { SteeringHarness } from "../support/steering-harness.js";

const REVIEW = {
  extra: [
    "arguments: true",
    "run:",
    "  target: spawn",
    "  recipe: reader",
    "activate:",
    "  - status.set reviewing",
    "deactivate:",
    "  - status.set review closed",
    "tools: [git_diff]",
    "action: 'Review {{ args.text }} now.'",
  ].join("\n"),
  body: "Review method.",
};

async function withReview(): Promise<SteeringHarness> {
  const h = await steeringHarness();
  await h.putSkill("review", REVIEW);
  return h;
}

const spawnedOf = (result: unknown): { processId: string; name: string } => (result as ActivateResult).spawned!;

describe("SkillSpawnRunner: run.target spawn (§2c)", () => {
  it("creates the worker and activates the skill there; the caller keeps nothing but the child link", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");

    // Act
    const record = await h.activate(parent.processId, "review", { args: "src/auth" });

    // Assess
    const spawned = spawnedOf(record.result);
    expect(record).toMatchObject({ status: "DONE", result: { activeSkills: [], turnScheduled: false, spawned: { name: "review-1" } } });
    const caller = await h.process(parent.processId);
    expect(caller).toMatchObject({ activeSkills: [], pending: [], children: [spawned] });
    expect(caller.statusText).toBeUndefined();
    const child = await h.process(spawned.processId);
    expect(child).toMatchObject({
      name: "review-1",
      sessionId: SESSION,
      recipe: "reader",
      parentProcessId: parent.processId,
      statusText: "reviewing",
      activeSkills: [expect.objectContaining({ name: "review", oneShot: false, fromRecipe: false, args: "src/auth" })],
      pending: [expect.objectContaining({ sender: "_skill", kind: "action", text: "Review src/auth now." })],
    });
    expect(h.events.ofType("turnScheduled")).toEqual([expect.objectContaining({ processId: spawned.processId, reason: "action" })]);
  });

  it("keeps the activation on the worker: its next turn carries the body and tools, the caller's does not", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    const spawned = spawnedOf((await h.activate(parent.processId, "review", { args: "x" })).result);

    // Act
    const childTurn = (await h.compose(spawned.processId)).result as {
      tools: string[];
      skillSection: string;
      messages: { text: string }[];
    };
    const callerTurn = (await h.compose(parent.processId)).result as { tools: string[]; skillSection: string };

    // Assess
    expect(childTurn.tools).toContain("git_diff");
    expect(childTurn.skillSection).toContain("Review method.");
    expect(childTurn.messages.map((m) => m.text)).toEqual(["Review x now."]);
    expect(callerTurn.tools).not.toContain("git_diff");
    expect(callerTurn.skillSection).toBe("");
  });

  it("names workers <skill>-1, <skill>-2, … and skips names already taken in the session", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    await h.spawn("plain", "review-1");
    await h.spawn("plain", "review-3");

    // Act
    const first = spawnedOf((await h.activate(parent.processId, "review")).result);
    const second = spawnedOf((await h.activate(parent.processId, "review")).result);

    // Assess
    expect([first.name, second.name]).toEqual(["review-2", "review-4"]);
    expect((await h.process(parent.processId)).children.map((c) => c.name)).toEqual(["review-2", "review-4"]);
  });

  it("fails with RECIPE_NOT_FOUND before creating anything when run.recipe does not exist", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("review", { ...REVIEW, extra: REVIEW.extra.replace("recipe: reader", "recipe: missing") });
    const parent = await h.spawn("open");

    // Act
    const record = await h.activate(parent.processId, "review");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "RECIPE_NOT_FOUND" } });
    expect((await h.process(parent.processId)).children).toEqual([]);
    expect(await h.processes.get(TENANT, "review-1")).toBeUndefined();
  });

  it("fails with SKILL_NOT_ALLOWED when the worker's recipe does not allow the skill", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("review", { ...REVIEW, extra: REVIEW.extra.replace("recipe: reader", "recipe: narrow") });
    const parent = await h.spawn("open");

    // Act
    const record = await h.activate(parent.processId, "review");

    // Assess
    expect(record).toMatchObject({
      status: "FAILED",
      error: { code: "SKILL_NOT_ALLOWED", message: "Skill 'review' is not allowed by recipe 'narrow'" },
    });
    expect((await h.process(parent.processId)).children).toEqual([]);
  });

  it("fails with SKILL_NOT_ALLOWED when the caller's own whitelist excludes the skill", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("whitelist");

    // Act
    const record = await h.activate(parent.processId, "review");

    // Assess
    expect(record.error?.code).toBe("SKILL_NOT_ALLOWED");
  });

  it("fails a missing required argument before a worker exists", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("review", {
      ...REVIEW,
      extra: REVIEW.extra.replace("arguments: true", "arguments:\n  - name: scope\n    required: true"),
    });
    const parent = await h.spawn("open");

    // Act
    const record = await h.activate(parent.processId, "review");

    // Assess
    expect(record.error?.code).toBe("SKILL_ARGUMENT_MISSING");
    expect((await h.process(parent.processId)).children).toEqual([]);
  });

  it("never spawns a grandchild: /skill on the worker, where the skill is active, is a parameter update", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    const spawned = spawnedOf((await h.activate(parent.processId, "review", { args: "a" })).result);

    // Act
    const record = await h.activate(spawned.processId, "review", { args: "b" });

    // Assess
    expect(record.result).toEqual({ activeSkills: [expect.objectContaining({ name: "review", args: "b" })], turnScheduled: false });
    const child = await h.process(spawned.processId);
    expect(child.children).toEqual([]);
    expect(child.pending).toHaveLength(1);
  });

  it("spawns once when the parent's request is delivered again after its result was stored", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    const { requestId } = await h.app.steerSkill(TENANT, parent.processId, ALICE, { command: "ACTIVATE", skillName: "review" });
    await h.drain();

    // Act
    await h.app.applyLaneMessage(laneMessage(parent.processId, requestId), { messageId: "again", groupId: undefined, receiveCount: 2 });
    await h.drain();

    // Assess
    expect((await h.process(parent.processId)).children).toHaveLength(1);
    expect(h.applied.filter((a) => a.message.kind === "process.spawnActivate")).toHaveLength(1);
  });

  it("spawns once when the parent's write failed after the worker was created", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    await h.app.steerSkill(TENANT, parent.processId, ALICE, { command: "ACTIVATE", skillName: "review" });
    // Every optimistic write attempt of the parent's update loses: an infrastructure failure.
    h.processes.injectConflicts(50);

    // Act
    const firstDrain = await h.drain();
    const secondDrain = await h.drain();

    // Assess
    expect(firstDrain.failures.map((f) => f.message.kind)).toEqual(["skill.activate"]);
    expect(secondDrain.failures).toEqual([]);
    const caller = await h.process(parent.processId);
    expect(caller.children).toEqual([expect.objectContaining({ name: "review-1" })]);
    expect(h.applied.filter((a) => a.message.kind === "process.spawnActivate")).toHaveLength(1);
    expect(await h.processes.get(TENANT, caller.children[0]!.processId)).toMatchObject({
      activeSkills: [expect.objectContaining({ name: "review" })],
    });
  });

  it("answers a redelivery whose write happened but whose result was not stored from the process state", async () => {
    // Prepare
    const h = await steeringHarness({ wrapRequests: failFirstComplete });
    await h.putSkill("review", REVIEW);
    const parent = await h.spawn("open");
    const { requestId } = await h.app.steerSkill(TENANT, parent.processId, ALICE, { command: "ACTIVATE", skillName: "review" });

    // Act
    const firstDrain = await h.drain();
    await h.drain();

    // Assess
    expect(firstDrain.failures).toHaveLength(1);
    const caller = await h.process(parent.processId);
    expect(caller.children).toHaveLength(1);
    expect(await h.requests.get(TENANT, parent.processId, requestId)).toMatchObject({
      status: "DONE",
      result: { spawned: caller.children[0] },
    });
  });

  it("reports the worker's last output to the parent when it completes its final turn", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    const spawned = spawnedOf((await h.activate(parent.processId, "review", { args: "x" })).result);
    const turn = (await h.compose(spawned.processId)).result as { turnId: string };

    // Act
    const record = await h.complete(spawned.processId, turn.turnId, "Two blockers found.", true);

    // Assess
    expect(record).toMatchObject({ status: "DONE", result: { status: "DONE" } });
    const child = await h.process(spawned.processId);
    expect(child).toMatchObject({ status: "DONE", lastOutput: "Two blockers found.", activeSkills: [], statusText: "review closed" });
    const caller = await h.process(parent.processId);
    expect(caller.pending).toEqual([
      expect.objectContaining({
        sender: "_process",
        kind: "report",
        childProcessId: spawned.processId,
        text: expect.stringContaining("Two blockers found."),
      }),
    ]);
    expect(caller.pending[0]?.text).toContain("review-1");
    expect(h.events.ofType("turnScheduled").at(-1)).toMatchObject({ processId: parent.processId, reason: "report" });
  });

  it("tells the parent when the worker's activation fails on the worker's lane", async () => {
    // Prepare
    const h = await withReview();
    const parent = await h.spawn("open");
    const { requestId } = await h.app.steerSkill(TENANT, parent.processId, BOB, { command: "ACTIVATE", skillName: "review" });
    // Apply only the parent's request, then take the skill away before the worker's lane runs.
    const queued = await drainOne(h, parent.processId);
    expect(queued).toBe(requestId);
    await h.documents.delete(TENANT, "_tenant", "_vance/skills/review/SKILL.md");

    // Act
    await h.drain();

    // Assess
    const worker = h.applied.find((a) => a.message.kind === "process.spawnActivate");
    expect(worker?.record).toMatchObject({ status: "FAILED", error: { code: "SKILL_NOT_FOUND" } });
    const caller = await h.process(parent.processId);
    expect(caller.pending).toEqual([
      expect.objectContaining({ sender: "_process", kind: "report", text: expect.stringContaining("FAILED") }),
    ]);
    expect(names(caller)).toEqual([]);
  });
});

const laneMessage = (processId: string, requestId: string): LaneMessage => ({
  requestId,
  processId,
  tenant: TENANT,
  user: ALICE,
  kind: "skill.activate",
  payload: { skillName: "review" },
  enqueuedAt: new Date().toISOString(),
});

/** A request store whose first `complete` fails like a lost connection (after the process write). */
function failFirstComplete(store: RequestStore): RequestStore {
  let failed = false;
  return {
    putQueued: (...a) => store.putQueued(...a),
    get: (...a) => store.get(...a),
    waitFor: (...a) => store.waitFor(...a),
    async complete(...a) {
      if (!failed) {
        failed = true;
        throw new Error("connection reset");
      }
      return store.complete(...a);
    },
  };
}

/** Delivers the head message of one process's lane only; returns its requestId. */
async function drainOne(h: SteeringHarness, processId: string): Promise<string> {
  let delivered = "";
  await h.lane.drain(async (message) => {
    if (message.processId !== processId || delivered !== "") throw new Error("not now");
    delivered = message.requestId;
    await h.app.applyLaneMessage(message, { messageId: "m", groupId: undefined, receiveCount: 1 });
  });
  return delivered;
}
