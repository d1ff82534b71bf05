import { describe, expect, it } from "vitest";
import type { LaneMessage, LaneMessageKind } from "../../shared/lanes/lane-message.js";
import type { RequestStore } from "../../shared/processes/request-store.js";
import type { ActivateResult } from "../../shared/steering/steer-context.js";
import type { ProcessEvents } from "../../shared/steering/process-events.js";
import type { Turn } from "../../shared/turns/turn.js";
import { ALICE, names, steeringHarness, TENANT } from "../support/steering-harness.js";
import type { SteeringHarness } from "../support/steering-harness.js";

/** Fails `complete` once for every requestId `matches` selects, like a connection lost after the process write. */
function flakyComplete(matches: (requestId: string) => boolean) {
  return (store: RequestStore): RequestStore => {
    const failed = new Set<string>();
    return {
      putQueued: (...a) => store.putQueued(...a),
      get: (...a) => store.get(...a),
      waitFor: (...a) => store.waitFor(...a),
      async complete(tenant, processId, requestId, outcome) {
        if (matches(requestId) && !failed.has(requestId)) {
          failed.add(requestId);
          throw new Error("connection reset");
        }
        return store.complete(tenant, processId, requestId, outcome);
      },
    };
  };
}

const REVIEW = "arguments: true\nrun:\n  target: spawn\n  recipe: reader\naction: 'Review {{ args.text }}'";

interface Scenario {
  /** Sets the stage and enqueues the request under test; returns the process it changes and how to find the request. */
  run(h: SteeringHarness): Promise<{ processId: string; isTarget: (requestId: string) => boolean; enqueue: () => Promise<void> }>;
}

const SCENARIOS: Record<LaneMessageKind, Scenario> = {
  "skill.activate": {
    async run(h) {
      const p = await h.spawn("open");
      return {
        processId: p.processId,
        isTarget: (id) => id === "target",
        enqueue: async () =>
          void (await h.app.steerSkill(TENANT, p.processId, ALICE, {
            command: "ACTIVATE",
            skillName: "alpha",
            args: "go",
            requestId: "target",
          })),
      };
    },
  },
  "skill.clear": {
    async run(h) {
      const p = await h.spawn("open");
      await h.activate(p.processId, "alpha");
      return {
        processId: p.processId,
        isTarget: (id) => id === "target",
        enqueue: async () =>
          void (await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "CLEAR", skillName: "alpha", requestId: "target" })),
      };
    },
  },
  "skill.clearAll": {
    async run(h) {
      const p = await h.spawn("open");
      await h.activate(p.processId, "alpha");
      return {
        processId: p.processId,
        isTarget: (id) => id === "target",
        enqueue: async () => void (await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "CLEAR_ALL", requestId: "target" })),
      };
    },
  },
  "turn.compose": {
    async run(h) {
      const p = await h.spawn("open");
      await h.activate(p.processId, "alpha", { args: "queued" });
      return {
        processId: p.processId,
        isTarget: (id) => id === "target",
        enqueue: async () => void (await h.app.composeTurn(TENANT, p.processId, ALICE, { message: "hi", requestId: "target" })),
      };
    },
  },
  "turn.complete": {
    async run(h) {
      const p = await h.spawn("open");
      await h.activate(p.processId, "alpha", { oneShot: true });
      const turnId = ((await h.compose(p.processId)).result as Turn).turnId;
      return {
        processId: p.processId,
        isTarget: (id) => id === "target",
        enqueue: async () => void (await h.app.completeTurn(TENANT, p.processId, ALICE, turnId, { output: "out", requestId: "target" })),
      };
    },
  },
  "process.spawnActivate": {
    async run(h) {
      const parent = await h.spawn("open");
      let childId = "";
      return {
        get processId() {
          return childId;
        },
        isTarget: (id) => id.endsWith("#spawn"),
        enqueue: async () => {
          // Apply the parent's request alone; the child's activation waits on the child's lane.
          const { requestId } = await h.app.steerSkill(TENANT, parent.processId, ALICE, { command: "ACTIVATE", skillName: "review" });
          await h.lane.drain(async (m) => {
            if (m.requestId !== requestId) throw new Error("later");
            await h.app.applyLaneMessage(m, { messageId: m.requestId, groupId: undefined, receiveCount: 1 });
          });
          childId = ((await h.requests.get(TENANT, parent.processId, requestId))?.result as ActivateResult).spawned!.processId;
        },
      };
    },
  },
  "process.report": {
    async run(h) {
      const parent = await h.spawn("open");
      const spawned = ((await h.activate(parent.processId, "review", { args: "x" })).result as ActivateResult).spawned!;
      const turnId = ((await h.compose(spawned.processId)).result as Turn).turnId;
      return {
        processId: parent.processId,
        isTarget: (id) => id.endsWith("#report"),
        enqueue: async () => void (await h.app.completeTurn(TENANT, spawned.processId, ALICE, turnId, { output: "all good", final: true })),
      };
    },
  },
};

describe("lane applier: at most once per requestId", () => {
  for (const [kind, scenario] of Object.entries(SCENARIOS)) {
    it(`applies a redelivered ${kind} once, whether its result was stored or not`, async () => {
      // Prepare
      let target: { isTarget: (id: string) => boolean } = { isTarget: () => false };
      const h = await steeringHarness({ wrapRequests: flakyComplete((id) => target.isTarget(id)) });
      await h.putSkill("alpha", { extra: "arguments: true\naction: 'Act {{ args.text }}'\ndeactivate:\n  - status.set cleared" });
      await h.putSkill("review", { extra: REVIEW });
      const staged = await scenario.run(h);
      target = staged;
      await staged.enqueue();

      // Act — first delivery writes the process but loses its result; the lane delivers again,
      // and once more after the result is stored.
      const first = await h.drain();
      const before = await h.process(staged.processId);
      const second = await h.drain();
      const targetMessage = first.failures[0]?.message as LaneMessage;
      await h.app.applyLaneMessage(targetMessage, { messageId: "dup", groupId: undefined, receiveCount: 3 });
      await h.drain();

      // Assess
      expect(first.failures.map((f) => f.message.kind)).toEqual([kind]);
      expect(second.failures).toEqual([]);
      const after = await h.process(staged.processId);
      expect(after.version).toBe(before.version);
      expect(after.appliedRequests.filter((id) => id === targetMessage.requestId)).toHaveLength(1);
      expect(await h.requests.get(TENANT, targetMessage.processId, targetMessage.requestId)).toMatchObject({ status: "DONE" });
      expect(h.applied.filter((a) => a.message.requestId === targetMessage.requestId)).toHaveLength(1);
    });
  }

  it("writes nothing when a concurrent delivery of the same request won the race", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: Go." });
    const p = await h.spawn("open");
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "twice" });
    // The other delivery (its visibility timeout ran out while this one worked) stores first.
    h.processes.injectConcurrentUpdate(TENANT, p.processId, (current) => ({
      ...current,
      pending: [{ id: "twice#action", sender: "_skill", text: "Go.", kind: "action", at: current.createdAt }],
      appliedRequests: [...current.appliedRequests, "twice"],
    }));

    // Act
    await h.drain();

    // Assess
    const after = await h.process(p.processId);
    expect(after.pending).toHaveLength(1);
    expect(after.activeSkills).toEqual([]);
    expect(after.version).toBe(p.version + 1);
  });

  it("enqueues a repeated requestId once and applies it once", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: Go." });
    const p = await h.spawn("open");

    // Act
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "same" });
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "same" });
    await h.drain();
    const again = await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "same" });
    await h.drain();

    // Assess
    expect(again).toEqual({ requestId: "same", status: "DONE" });
    expect((await h.process(p.processId)).pending).toHaveLength(1);
    expect(h.applied).toHaveLength(1);
  });

  it("keeps a requestId of one process apart from the same requestId on another (requestIds are scoped to their process)", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const a = await h.spawn("open");
    const b = await h.spawn("open");
    await h.app.steerSkill(TENANT, a.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "shared" });
    await h.drain();

    // Act
    const reuse = await h.app.steerSkill(TENANT, b.processId, ALICE, { command: "CLEAR_ALL", requestId: "shared" });
    await h.drain();

    // Assess
    expect(reuse.status).toBe("QUEUED");
    expect(await h.app.getRequest(TENANT, a.processId, "shared")).toMatchObject({
      processId: a.processId,
      kind: "skill.activate",
      status: "DONE",
    });
    expect(await h.app.getRequest(TENANT, b.processId, "shared")).toMatchObject({
      processId: b.processId,
      kind: "skill.clearAll",
      status: "DONE",
    });
  });
});

describe("lane applier: failures", () => {
  it("records a domain error as FAILED and lets the rest of the lane go on", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha");
    const p = await h.spawn("lockdown");
    const q = await h.spawn("open");

    // Act
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "r1" });
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "CLEAR_ALL", requestId: "r2" });
    await h.app.steerSkill(TENANT, q.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "r3" });
    const drained = await h.drain();

    // Assess
    expect(drained.failures).toEqual([]);
    expect(h.applied.map((a) => [a.message.requestId, a.record.status])).toEqual(
      expect.arrayContaining([
        ["r1", "FAILED"],
        ["r2", "DONE"],
        ["r3", "DONE"],
      ]),
    );
    expect(h.events.ofType("requestCompleted").find((e) => e.requestId === "r1")).toMatchObject({
      status: "FAILED",
      error: { code: "SKILL_NOT_ALLOWED" },
    });
  });

  it("rejects an infrastructure failure, holding back its process's lane while other processes proceed", async () => {
    // Prepare
    const h = await steeringHarness({ wrapRequests: flakyComplete((id) => id === "blocked-1") });
    await h.putSkill("alpha");
    await h.putSkill("beta");
    const p = await h.spawn("open");
    const q = await h.spawn("open");
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "alpha", requestId: "blocked-1" });
    await h.app.steerSkill(TENANT, p.processId, ALICE, { command: "ACTIVATE", skillName: "beta", requestId: "blocked-2" });
    await h.app.steerSkill(TENANT, q.processId, ALICE, { command: "ACTIVATE", skillName: "beta", requestId: "free" });

    // Act
    const first = await h.drain();

    // Assess
    expect(first.failures.map((f) => f.message.requestId)).toEqual(["blocked-1"]);
    expect(names(await h.process(q.processId))).toEqual(["beta"]);
    expect((await h.requests.get(TENANT, p.processId, "blocked-2"))?.status).toBe("QUEUED");
    await h.drain();
    expect(names(await h.process(p.processId))).toEqual(["alpha", "beta"]);
  });

  it("records a malformed payload as FAILED INVALID_REQUEST", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    await h.requests.putQueued(TENANT, p.processId, "bad", "skill.activate");
    const message: LaneMessage = {
      requestId: "bad",
      processId: p.processId,
      tenant: TENANT,
      user: ALICE,
      kind: "skill.activate",
      payload: { skillName: "alpha", sneaky: true },
      enqueuedAt: new Date().toISOString(),
    };

    // Act
    await h.app.applyLaneMessage(message, { messageId: "m", groupId: undefined, receiveCount: 1 });

    // Assess
    expect(await h.requests.get(TENANT, p.processId, "bad")).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST" } });
  });

  it("records a message for an unknown process as FAILED PROCESS_NOT_FOUND, creating the record if missing", async () => {
    // Prepare
    const h = await steeringHarness();
    const message: LaneMessage = {
      requestId: "orphan",
      processId: "no-such-process",
      tenant: TENANT,
      user: ALICE,
      kind: "skill.clearAll",
      enqueuedAt: new Date().toISOString(),
    };

    // Act
    await h.app.applyLaneMessage(message, { messageId: "m", groupId: undefined, receiveCount: 1 });

    // Assess
    expect(await h.requests.get(TENANT, "no-such-process", "orphan")).toMatchObject({
      status: "FAILED",
      error: { code: "PROCESS_NOT_FOUND" },
    });
  });

  it("answers an unknown process at enqueue instead of queueing", async () => {
    // Prepare
    const h = await steeringHarness();

    // Act
    const enqueue = h.app.steerSkill(TENANT, "nope", ALICE, { command: "CLEAR_ALL" });

    // Assess
    await expect(enqueue).rejects.toMatchObject({ code: "PROCESS_NOT_FOUND" });
    expect(h.lane.size).toBe(0);
  });

  it("does not fail a message when subscribers cannot be told", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "action: Go." });
    const p = await h.spawn("open");
    const broken: ProcessEvents = {
      turnScheduled: async () => {
        throw new Error("socket gone");
      },
      requestCompleted: async () => {
        throw new Error("socket gone");
      },
    };
    h.events.turnScheduled = broken.turnScheduled;
    h.events.requestCompleted = broken.requestCompleted;

    // Act
    const record = await h.activate(p.processId, "alpha");

    // Assess
    expect(record.status).toBe("DONE");
    expect(names(await h.process(p.processId))).toEqual(["alpha"]);
  });
});
