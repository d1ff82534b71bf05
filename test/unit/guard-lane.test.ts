import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SandboxedGuardRunner } from "../../shared/guards/sandboxed-guard-runner.js";
import type { LlmPort } from "../../shared/llm/llm-port.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import type { GuardRunner } from "../../shared/turns/guard-runner.js";
import type { Turn } from "../../shared/turns/turn.js";
import { EmptyLayer, PROJECT, steeringHarness } from "../support/steering-harness.js";

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

const turnOf = (result: unknown): Turn => result as Turn;

/** The steering harness with the sandboxed guard runner reading the harness's own documents. */
async function guardedHarness(llm: LlmPort = { callForJson: async () => null }) {
  // eslint-disable-next-line prefer-const -- assigned once the harness (and its documents) exist
  let runner: GuardRunner | undefined;
  const h = await steeringHarness({ guard: { evaluate: (evaluation) => runner!.evaluate(evaluation) } });
  runner = new SandboxedGuardRunner({ sources: { store: h.documents, bundled: new EmptyLayer() }, llm, pool, llmTimeoutMs: 1_000 });
  return h;
}

describe("completion guards on the lane", () => {
  it("a guard's continueWith queues a _guard message in the completing write, schedules a turn, and the next turn delivers it", async () => {
    // Prepare
    const h = await guardedHarness();
    await h.putSkill("checker", {
      extra:
        "activate:\n  - |\n    guard inline\n    vance.guard.continueWith('Did you run the build? You said: ' + vance.guard.output)\ndeactivate:\n  - guard clear",
    });
    const p = await h.spawn("open");
    await h.activate(p.processId, "checker");
    const turn = turnOf((await h.compose(p.processId, "write the code")).result);

    // Act
    const completed = await h.complete(p.processId, turn.turnId, "code written");
    const next = turnOf((await h.compose(p.processId)).result);

    // Assess
    expect(completed.result).toMatchObject({ turnScheduled: true });
    expect(h.events.ofType("turnScheduled").at(-1)).toMatchObject({ processId: p.processId, reason: "guard" });
    expect(next.messages).toEqual([
      expect.objectContaining({ sender: "_guard", kind: "guard", text: "Did you run the build? You said: code written" }),
    ]);
    expect((await h.process(p.processId)).pending).toEqual([]);
  });

  it("the bundled code-guard fires through the LLM port; with no LLM it fails open and the turn completes", async () => {
    // Prepare
    const codeGuard = readFileSync(new URL("../../shared/bundled/_vance/skills/code-guard/SKILL.md", import.meta.url), "utf8");
    const completeGuardedTurn = async (llm?: LlmPort) => {
      const h = await guardedHarness(llm);
      await h.putFile("_vance/skills/code-guard/SKILL.md", codeGuard);
      const p = await h.spawn("open");
      await h.activate(p.processId, "code-guard");
      const turn = turnOf((await h.compose(p.processId, "add login")).result);
      const record = await h.complete(p.processId, turn.turnId, "done");
      return { record, process: await h.process(p.processId) };
    };

    // Act
    const firing = await completeGuardedTurn({ callForJson: async () => ({ fire: true }) });
    const silent = await completeGuardedTurn();

    // Assess
    expect(firing.record.status).toBe("DONE");
    expect(firing.process.pending).toEqual([
      expect.objectContaining({ sender: "_guard", text: "Was the build run and the specification updated?" }),
    ]);
    expect(silent.record.status).toBe("DONE");
    expect(silent.record.result).toMatchObject({ turnScheduled: false });
    expect(silent.process.pending).toEqual([]);
    expect(silent.process.turn).toBeNull();
  });

  it("vance.guard.task is the turn's user message, or the pending messages it consumed", async () => {
    // Prepare
    const h = await guardedHarness();
    await h.putSkill("echo", { extra: "activate:\n  - |\n    guard inline\n    vance.guard.continueWith('task: ' + vance.guard.task)" });
    const p = await h.spawn("open");
    await h.activate(p.processId, "echo");
    const first = turnOf((await h.compose(p.processId, "Add a login form")).result);

    // Act
    await h.complete(p.processId, first.turnId, "done");
    const second = turnOf((await h.compose(p.processId)).result);
    await h.complete(p.processId, second.turnId, "done again");

    // Assess
    expect(second.messages).toEqual([expect.objectContaining({ sender: "_guard", text: "task: Add a login form" })]);
    expect((await h.process(p.processId)).pending).toEqual([
      expect.objectContaining({ sender: "_guard", text: "task: task: Add a login form" }),
    ]);
  });

  it("`guard script` from a project skill reads the script from the project layer", async () => {
    // Prepare
    const h = await guardedHarness();
    await h.putSkill("checker", { extra: "activate:\n  - guard script _vance/guards/check.js" }, PROJECT);
    await h.putFile("_vance/guards/check.js", "vance.guard.continueWith('project guard')", PROJECT);
    await h.putFile("_vance/guards/check.js", "vance.guard.continueWith('tenant guard')");
    const p = await h.spawn("open");
    await h.activate(p.processId, "checker");
    const turn = turnOf((await h.compose(p.processId)).result);

    // Act
    await h.complete(p.processId, turn.turnId, "done");

    // Assess
    const process = await h.process(p.processId);
    expect(process.guard).toEqual({ type: "script", path: "_vance/guards/check.js", layer: { source: "PROJECT", project: PROJECT } });
    expect(process.pending).toEqual([expect.objectContaining({ sender: "_guard", text: "project guard" })]);
  });
});
