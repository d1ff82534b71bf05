import { InMemoryDocumentStore } from "../shared/documents/in-memory-document-store.js";
import type { DocumentLayer } from "../shared/documents/document-store.js";
import { SandboxedGuardRunner } from "../shared/guards/sandboxed-guard-runner.js";
import type { LlmPort } from "../shared/llm/llm-port.js";
import { llmScriptBindings } from "../shared/llm/llm-script-binding.js";
import { newProcess } from "../shared/processes/process.js";
import type { GuardConfig } from "../shared/processes/process.js";
import { SandboxPool } from "../shared/sandbox/sandbox-pool.js";
import { runScript } from "../shared/sandbox/script-runtime.js";
import { findScriptTool } from "../shared/scripts/script-tools.js";
import { WorkspaceBudget } from "../shared/scripts/script-workspace.js";
import { SkillScriptRunner } from "../shared/scripts/skill-script-runner.js";
import { SkillLoader } from "../shared/skills/skill-loader.js";
import { repetitionRows, timeMany, type BenchRow } from "./bench-table.js";

/** The code-guard of spec §2a, verbatim. */
const GUARD = `
const res = vance.llm.callForJson("completion-guard", "Evaluate the guard condition.", {
  judge: "Has a development task of the user been completed?",
  task: vance.guard.task,
  output: vance.guard.output,
});
if (res && res.fire) {
  vance.guard.continueWith("Was the build run and the specification updated?");
}
`;

/** Answers at once, so the figure is the sandbox's share of a guard, not a model's. */
const fakeLlm: LlmPort = { callForJson: async () => ({ fire: true }) };

/**
 * Three, not REPETITIONS: a repetition is four batches of 100 evaluations (the fewest that give
 * a p99 a meaning) and one of 50, on a pool of its own, ~1.5 s; seven would more than double the
 * section again.
 */
const RUNS = 3;
/** Per repetition and batch: a p99 over fewer than 100 samples would be their maximum. */
const BATCH = 100;
/** p50-only rows: half a batch pins a median well enough. */
const HALF_BATCH = 50;
/** Host calls per repetition, in one evaluation (~0.15 ms each); the empty loop is subtracted. */
const HOST_CALLS = 500;

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const samples = (run: () => Promise<unknown>, count = BATCH): Promise<number[]> => timeMany(count, run);

interface Repetition {
  coldLoadMs: number;
  overhead: number[];
  hostCallMs: number;
  guard: number[];
  guardRunnerInline: number[];
  guardRunnerScript: number[];
  scriptTool: number[];
}

/**
 * One repetition on a pool of its own, so scriptColdLoad is a fresh worker's first runScript
 * (thread, wasm, first context), not a second call on a warm one; the other batches follow on
 * that worker once warm.
 */
async function repetition(): Promise<Repetition> {
  const pool = new SandboxPool({ size: 1, timeoutMs: 30_000 });
  try {
    const coldLoadMs = await timed(() => runScript({ source: "args.n + 1", args: { n: 1 }, pool }));
    for (let i = 0; i < 20; i++) await runScript({ source: "1", pool });
    const overhead = await samples(() => runScript({ source: "args.n + 1", args: { n: 1 }, pool }));

    const echo = { echo: ([value]: unknown[]) => value };
    const loop = (n: number): string => `let s = 0; for (let i = 0; i < ${n}; i++) s += vance.echo(i); s`;
    await runScript({ source: loop(50), bindings: echo, pool });
    const emptyMs = await timed(() => runScript({ source: loop(0), bindings: echo, pool, limits: { timeoutMs: 30_000 } }));
    const loopMs = await timed(() => runScript({ source: loop(HOST_CALLS), bindings: echo, pool, limits: { timeoutMs: 30_000 } }));

    const guardBindings = {
      llm: llmScriptBindings(fakeLlm),
      guard: { task: "add login", output: "Implemented and tested.", continueWith: () => undefined },
    };
    const guard = await samples(() => runScript({ source: GUARD, bindings: guardBindings, pool }));
    return {
      coldLoadMs,
      overhead,
      hostCallMs: Math.max(0, loopMs - emptyMs) / HOST_CALLS,
      guard,
      ...(await benchGuards(pool)),
      scriptTool: await benchScriptTool(pool),
    };
  } finally {
    await pool.close();
  }
}

/**
 * Script runtime costs, in ms, each the median of RUNS repetitions:
 * - scriptColdLoad: a new one-worker pool through its first runScript (thread, wasm, first context);
 * - scriptOverheadWarm: runScript of a trivial script on a warm worker (fresh context, vance bindings);
 * - hostCallRoundTrip: one synchronous-looking host call (guest → worker → main thread → back),
 *   averaged over many calls in one evaluation, the empty loop subtracted;
 * - guardEvaluation: the spec's code-guard with an instant fake LLM and continueWith;
 * - guardRunner*: the same through SandboxedGuardRunner (benchGuards);
 * - scriptToolRun: one skill script tool call through SkillScriptRunner.
 */
export async function benchScripts(): Promise<BenchRow[]> {
  const runs: Repetition[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await repetition());
  const { row, percentileRow } = repetitionRows("script_", runs);
  const batchNote = `${BATCH} calls per repetition`;
  return [
    row("scriptColdLoadMs", (run) => run.coldLoadMs, "new one-worker pool through its first runScript, one per repetition"),
    percentileRow("scriptOverheadWarmP50Ms", (run) => run.overhead, 50, batchNote),
    percentileRow("scriptOverheadWarmP99Ms", (run) => run.overhead, 99, batchNote),
    row("hostCallRoundTripMs", (run) => run.hostCallMs, `mean of ${HOST_CALLS} host calls in one evaluation per repetition`),
    percentileRow("guardEvaluationP50Ms", (run) => run.guard, 50, batchNote),
    percentileRow("guardEvaluationP99Ms", (run) => run.guard, 99, batchNote),
    percentileRow("guardRunnerInlineP50Ms", (run) => run.guardRunnerInline, 50, batchNote),
    percentileRow("guardRunnerInlineP99Ms", (run) => run.guardRunnerInline, 99, batchNote),
    percentileRow("guardRunnerScriptP50Ms", (run) => run.guardRunnerScript, 50, `${HALF_BATCH} calls per repetition`),
    percentileRow("scriptToolRunP50Ms", (run) => run.scriptTool, 50, batchNote),
    percentileRow("scriptToolRunP99Ms", (run) => run.scriptTool, 99, batchNote),
  ];
}

const EMPTY_LAYER: DocumentLayer = { read: async () => undefined, list: async () => [] };

/**
 * The completion guard as the lane runs it (SandboxedGuardRunner.evaluate: source lookup, bindings,
 * fail-open wrapper), with an instant fake LLM, one batch each:
 * - guardRunnerInline: the spec's code-guard installed by `guard inline`;
 * - guardRunnerScript: the same source installed by `guard script <path>`, read from the store each time.
 */
export async function benchGuards(pool: SandboxPool): Promise<{ guardRunnerInline: number[]; guardRunnerScript: number[] }> {
  const documents = new InMemoryDocumentStore();
  await documents.put("acme", "proj1", "_vance/guards/code-guard.js", GUARD);
  const runner = new SandboxedGuardRunner({ sources: { store: documents, bundled: EMPTY_LAYER }, llm: fakeLlm, pool });
  const evaluation = (guard: GuardConfig) => ({
    process: newProcess({
      tenant: "acme",
      processId: "p1",
      sessionId: "s1",
      name: "main",
      recipe: "default",
      engine: "ford",
      projectId: "proj1",
      guard,
    }),
    turnId: "t1",
    task: "add login",
    output: "Implemented and tested.",
    final: false,
  });
  const inline = evaluation({ type: "inline", source: GUARD });
  const script = evaluation({ type: "script", path: "_vance/guards/code-guard.js", layer: { source: "PROJECT", project: "proj1" } });
  for (let i = 0; i < 10; i++) await runner.evaluate(inline);
  return {
    guardRunnerInline: await samples(() => runner.evaluate(inline)),
    guardRunnerScript: await samples(() => runner.evaluate(script), HALF_BATCH),
  };
}

/** One BRAIN script tool call (file read from its layer, bindings, run), without the preview turn. */
async function benchScriptTool(pool: SandboxPool): Promise<number[]> {
  const documents = new InMemoryDocumentStore();
  const skill = "---\ntitle: Kit\ndescription: Bench kit\nversion: 1.0.0\nscripts:\n  - name: sum\n    file: scripts/sum.js\n---\n";
  await documents.put("acme", "_tenant", "_vance/skills/kit/SKILL.md", skill);
  await documents.put(
    "acme",
    "_tenant",
    "_vance/skills/kit/scripts/sum.js",
    "vance.log('summing'); args.values.reduce((a, b) => a + b, 0)",
  );
  const loader = new SkillLoader({ store: documents, bundled: EMPTY_LAYER });
  const resolved = await loader.load({ tenantId: "acme", projectId: "proj1" }, "kit");
  const tool = resolved && findScriptTool([resolved], "skill_kit__sum");
  if (!tool) throw new Error("bench skill did not resolve");
  const runner = new SkillScriptRunner({ loader, documents, pool });
  const process = newProcess({
    tenant: "acme",
    processId: "p1",
    sessionId: "s1",
    name: "main",
    recipe: "default",
    engine: "ford",
    projectId: "proj1",
  });
  const call = () =>
    runner.run({
      process,
      user: null,
      tool,
      args: { values: [1, 2, 3] },
      depth: 0,
      budget: new WorkspaceBudget(),
      callTool: async () => null,
    });
  for (let i = 0; i < 10; i++) await call();
  return samples(call);
}
