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

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const samples = async (count: number, run: () => Promise<unknown>): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await timed(run));
  return out.sort((a, b) => a - b);
};

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * Script runtime costs, in ms:
 * - scriptColdLoad: a new one-worker pool through its first runScript (thread, wasm, first context);
 * - scriptOverheadWarm: runScript of a trivial script on a warm worker (fresh context, vance bindings);
 * - hostCallRoundTrip: one synchronous-looking host call (guest → worker → main thread → back),
 *   averaged over many calls in one evaluation, the empty loop subtracted;
 * - guardEvaluation: the spec's code-guard with an instant fake LLM and continueWith;
 * - guardRunner*: the same through SandboxedGuardRunner (benchGuards);
 * - scriptToolRun: one skill script tool call through SkillScriptRunner.
 */
export async function benchScripts(): Promise<Record<string, number>> {
  const coldPool = new SandboxPool({ size: 1 });
  const coldLoadMs = await timed(() => runScript({ source: "args.n + 1", args: { n: 1 }, pool: coldPool }));
  await coldPool.close();

  const pool = new SandboxPool({ size: 1, timeoutMs: 30_000 });
  try {
    await pool.warmUp();
    for (let i = 0; i < 20; i++) await runScript({ source: "1", pool });
    const overhead = await samples(200, () => runScript({ source: "args.n + 1", args: { n: 1 }, pool }));

    const calls = 2_000;
    const echo = { echo: ([value]: unknown[]) => value };
    const loop = (n: number): string => `let s = 0; for (let i = 0; i < ${n}; i++) s += vance.echo(i); s`;
    await runScript({ source: loop(200), bindings: echo, pool });
    const emptyMs = await timed(() => runScript({ source: loop(0), bindings: echo, pool, limits: { timeoutMs: 30_000 } }));
    const loopMs = await timed(() => runScript({ source: loop(calls), bindings: echo, pool, limits: { timeoutMs: 30_000 } }));

    const guardBindings = {
      llm: llmScriptBindings(fakeLlm),
      guard: { task: "add login", output: "Implemented and tested.", continueWith: () => undefined },
    };
    const guard = await samples(100, () => runScript({ source: GUARD, bindings: guardBindings, pool }));
    const guards = await benchGuards(pool);
    const scriptTool = await benchScriptTool(pool);

    return {
      scriptColdLoadMs: round(coldLoadMs),
      scriptOverheadWarmP50Ms: round(percentile(overhead, 0.5)),
      scriptOverheadWarmP99Ms: round(percentile(overhead, 0.99)),
      hostCallRoundTripMs: round(Math.max(0, loopMs - emptyMs) / calls),
      guardEvaluationP50Ms: round(percentile(guard, 0.5)),
      guardEvaluationP99Ms: round(percentile(guard, 0.99)),
      ...guards,
      ...scriptTool,
    };
  } finally {
    await pool.close();
  }
}

const EMPTY_LAYER: DocumentLayer = { read: async () => undefined, list: async () => [] };

/**
 * The completion guard as the lane runs it (SandboxedGuardRunner.evaluate: source lookup, bindings,
 * fail-open wrapper), with an instant fake LLM:
 * - guardRunnerInline: the spec's code-guard installed by `guard inline`;
 * - guardRunnerScript: the same source installed by `guard script <path>`, read from the store each time.
 */
export async function benchGuards(pool: SandboxPool): Promise<Record<string, number>> {
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
  const inlineTimes = await samples(100, () => runner.evaluate(inline));
  const scriptTimes = await samples(100, () => runner.evaluate(script));
  return {
    guardRunnerInlineP50Ms: round(percentile(inlineTimes, 0.5)),
    guardRunnerInlineP99Ms: round(percentile(inlineTimes, 0.99)),
    guardRunnerScriptP50Ms: round(percentile(scriptTimes, 0.5)),
  };
}

/** One BRAIN script tool call (file read from its layer, bindings, run), without the preview turn. */
async function benchScriptTool(pool: SandboxPool): Promise<Record<string, number>> {
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
  const times = await samples(100, call);
  return { scriptToolRunP50Ms: round(percentile(times, 0.5)), scriptToolRunP99Ms: round(percentile(times, 0.99)) };
}
