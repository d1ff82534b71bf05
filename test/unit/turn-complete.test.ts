import { describe, expect, it } from "vitest";
import type { GuardEvaluation, GuardRunner, GuardVerdict } from "../../shared/turns/guard-runner.js";
import type { TurnCompleteResult } from "../../shared/turns/turn-completion.js";
import type { Turn } from "../../shared/turns/turn.js";
import { names, steeringHarness, TENANT } from "../support/steering-harness.js";

const KEYWORDS = (word: string): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${word}]`;
const turnIdOf = (result: unknown): string => (result as Turn).turnId;

class RecordingGuard implements GuardRunner {
  readonly calls: GuardEvaluation[] = [];
  constructor(private readonly verdict: GuardVerdict = {}) {}
  async evaluate(evaluation: GuardEvaluation): Promise<GuardVerdict> {
    this.calls.push(evaluation);
    return this.verdict;
  }
}

describe("SkillTurnSupport: complete", () => {
  it("auto-clears the oneShot skills of the turn, firing their deactivate:, and keeps sticky ones", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("sticky");
    await h.putSkill("once", { extra: "deactivate:\n  - status.set once cleared" });
    await h.putSkill("trig", { extra: `${KEYWORDS("deploy")}\ndeactivate:\n  - mode.set after-trigger` });
    const p = await h.spawn("open");
    await h.activate(p.processId, "sticky");
    await h.activate(p.processId, "once", { oneShot: true });
    const turnId = turnIdOf((await h.compose(p.processId, "deploy")).result);

    // Act
    const record = await h.complete(p.processId, turnId, "done");

    // Assess
    const after = await h.process(p.processId);
    expect(names(after)).toEqual(["sticky"]);
    expect(after).toMatchObject({ statusText: "once cleared", mode: "after-trigger", lastOutput: "done", turn: null, status: "ACTIVE" });
    expect(record.result).toEqual({
      activeSkills: after.activeSkills,
      cleared: ["once", "trig"],
      status: "ACTIVE",
      turnScheduled: false,
    } satisfies TurnCompleteResult);
  });

  it("keeps a oneShot skill activated after the turn was composed, and one made sticky meanwhile", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("upgraded");
    await h.putSkill("late");
    const p = await h.spawn("open");
    await h.activate(p.processId, "upgraded", { oneShot: true });
    const turnId = turnIdOf((await h.compose(p.processId)).result);
    await h.activate(p.processId, "upgraded");
    await h.activate(p.processId, "late", { oneShot: true });

    // Act
    await h.complete(p.processId, turnId, "ok");

    // Assess
    expect((await h.process(p.processId)).activeSkills).toEqual([
      expect.objectContaining({ name: "upgraded", oneShot: false }),
      expect.objectContaining({ name: "late", oneShot: true }),
    ]);
  });

  it("refuses a turnId that is not the turn in flight", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    await h.compose(p.processId);

    // Act
    const record = await h.complete(p.processId, "other-turn", "x");

    // Assess
    expect(record).toMatchObject({ status: "FAILED", error: { code: "INVALID_REQUEST" } });
  });

  it("asks the guard only when the process has one, and queues its continueWith as a _guard turn", async () => {
    // Prepare
    const guard = new RecordingGuard({ continueWith: "Was the build run?" });
    const h = await steeringHarness({ guard });
    await h.putSkill("code-guard", { extra: "activate:\n  - guard inline vance.guard.continueWith('x')" });
    const unguarded = await h.spawn("open");
    const guarded = await h.spawn("open");
    await h.activate(guarded.processId, "code-guard");
    const t1 = turnIdOf((await h.compose(unguarded.processId)).result);
    const t2 = turnIdOf((await h.compose(guarded.processId)).result);

    // Act
    await h.complete(unguarded.processId, t1, "no guard here");
    const record = await h.complete(guarded.processId, t2, "code written");

    // Assess
    expect(guard.calls).toEqual([expect.objectContaining({ turnId: t2, output: "code written", final: false })]);
    expect(guard.calls[0]?.process.processId).toBe(guarded.processId);
    expect((await h.process(guarded.processId)).pending).toEqual([
      expect.objectContaining({ sender: "_guard", kind: "guard", text: "Was the build run?" }),
    ]);
    expect(record.result).toMatchObject({ turnScheduled: true });
    expect(h.events.ofType("turnScheduled").at(-1)).toMatchObject({ processId: guarded.processId, reason: "guard" });
    expect((await h.process(unguarded.processId)).pending).toEqual([]);
  });

  it("ends the process on final: status DONE, every skill cleared with deactivate:, no report without a parent", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("alpha", { extra: "deactivate:\n  - status.set closed" });
    const p = await h.spawn("unlocked");
    const turnId = turnIdOf((await h.compose(p.processId)).result);

    // Act
    const record = await h.complete(p.processId, turnId, "bye", true);

    // Assess
    expect(record.result).toMatchObject({ status: "DONE", cleared: ["alpha"], activeSkills: [] });
    expect(await h.process(p.processId)).toMatchObject({ status: "DONE", statusText: "closed", lastOutput: "bye" });
    expect(h.applied.filter((a) => a.message.kind === "process.report")).toEqual([]);
  });

  it("cuts an output larger than 32 KB when storing it", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");
    const turnId = turnIdOf((await h.compose(p.processId)).result);

    // Act
    await h.complete(p.processId, turnId, "é".repeat(40 * 1024));

    // Assess
    const stored = (await h.processes.get(TENANT, p.processId))?.lastOutput ?? "";
    expect(Buffer.byteLength(stored, "utf8")).toBeLessThanOrEqual(32 * 1024);
    expect(stored.endsWith("[… truncated]")).toBe(true);
  });
});
