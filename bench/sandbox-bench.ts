import { SandboxPool } from "../shared/sandbox/sandbox-pool.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import type { RenderContext } from "../shared/templates/template-renderer.js";
import { repetitionRows, timeMany, type BenchRow } from "./bench-table.js";

const BODY = [
  "# Code review",
  "",
  "Review {{ args.scope | default('the change') }} for {{ recipe }}.",
  "{% if tier == 'small' %}",
  "Be brief: at most five findings.",
  "{% else %}",
  "Be thorough; group findings by severity.",
  "{% endif %}",
  "{% for focus in params.focus %}",
  "- Focus {{ loop.index }}: {{ focus }}",
  "{% endfor %}",
].join("\n");

/**
 * Three, not REPETITIONS: a repetition renders 100 uncached templates (~10 ms each, ~1 s), the
 * fewest that give its p99 a meaning, on a pool of its own; seven would more than double the section again.
 */
const RUNS = 3;
/** Per repetition: a p99 over fewer than 100 samples would be their maximum. */
const EVALS = 100;
const COLD_RENDERS = 100;
const WARM_RENDERS = 2_000;

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const context = (i: number): RenderContext => ({
  tier: i % 2 === 0 ? "small" : "large",
  recipe: "coding",
  params: { focus: ["tests", "naming", `run ${i}`] },
  args: { scope: "src/main", text: "src/main", words: ["src/main"] },
});

interface Repetition {
  coldStartMs: number;
  firstRenderMs: number;
  evals: number[];
  coldRenders: number[];
  warmRenderMs: number;
}

/**
 * One repetition on a pool and renderer of its own, built as a Lambda's init builds them, so its
 * cold figures are a fresh worker's (thread, wasm, guest runtime) and not a second call on a warm one.
 * Only the host's nunjucks compiler module, loaded once per process, is warm after the first.
 */
async function repetition(): Promise<Repetition> {
  const pool = new SandboxPool({ size: 1 });
  try {
    const coldStartMs = await timed(() => pool.warmUp());
    const renderer = createTemplateRenderer({ pool });
    const firstRenderMs = await timed(() => renderer.render(BODY, context(-1)));
    const evals = await timeMany(EVALS, () => pool.evaluate({ code: "1" }));
    const coldRenders = await timeMany(COLD_RENDERS, (i) => renderer.render(BODY, context(i)));
    const warmTotal = await timed(async () => {
      for (let i = 0; i < WARM_RENDERS; i++) await renderer.render(BODY, context(0));
    });
    return { coldStartMs, firstRenderMs, evals, coldRenders, warmRenderMs: warmTotal / WARM_RENDERS };
  } finally {
    await pool.close();
  }
}

/**
 * Sandbox and template-renderer costs, in ms, each the median of RUNS repetitions:
 * - coldStart: a new one-worker pool until ready (thread, wasm, warm-up evaluation);
 * - evalOverhead: round trip of a trivial evaluation on a warm worker (fresh QuickJS runtime each);
 * - templateFirstRender: a new renderer's first render on the just-started pool;
 * - coldRender: an uncached render of a typical skill body (fresh context, guest runtime parsed again);
 * - warmRender: the same render served from the output cache.
 */
export async function benchSandbox(): Promise<BenchRow[]> {
  const runs: Repetition[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await repetition());
  const { row, percentileRow } = repetitionRows("sandbox_", runs);
  return [
    row("sandboxColdStartMs", (run) => run.coldStartMs, "new one-worker pool until ready, one per repetition"),
    percentileRow("sandboxEvalOverheadP50Ms", (run) => run.evals, 50, `${EVALS} trivial evaluations per repetition`),
    percentileRow("sandboxEvalOverheadP99Ms", (run) => run.evals, 99, `${EVALS} trivial evaluations per repetition`),
    row("templateFirstRenderMs", (run) => run.firstRenderMs, "a new renderer's first render on a new pool, one per repetition"),
    percentileRow("templateColdRenderP50Ms", (run) => run.coldRenders, 50, `${COLD_RENDERS} uncached renders per repetition`),
    percentileRow("templateColdRenderP99Ms", (run) => run.coldRenders, 99, `${COLD_RENDERS} uncached renders per repetition`),
    row("templateWarmRenderMs", (run) => run.warmRenderMs, `mean of ${WARM_RENDERS} cached renders per repetition`),
  ];
}
