import type { LlmPort } from "../shared/llm/llm-port.js";
import { llmScriptBindings } from "../shared/llm/llm-script-binding.js";
import { SandboxPool } from "../shared/sandbox/sandbox-pool.js";
import { runScript } from "../shared/sandbox/script-runtime.js";

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

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

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
 * - guardEvaluation: the spec's code-guard with an instant fake LLM and continueWith.
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

    return {
      scriptColdLoadMs: round(coldLoadMs),
      scriptOverheadWarmP50Ms: round(percentile(overhead, 0.5)),
      scriptOverheadWarmP99Ms: round(percentile(overhead, 0.99)),
      hostCallRoundTripMs: round(Math.max(0, loopMs - emptyMs) / calls),
      guardEvaluationP50Ms: round(percentile(guard, 0.5)),
      guardEvaluationP99Ms: round(percentile(guard, 0.99)),
    };
  } finally {
    await pool.close();
  }
}
