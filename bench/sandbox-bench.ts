import { SandboxPool } from "../shared/sandbox/sandbox-pool.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import type { RenderContext } from "../shared/templates/template-renderer.js";

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

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const round = (ms: number): number => Math.round(ms * 100) / 100;

/**
 * Sandbox and template-renderer costs, in ms:
 * - coldStart: a new one-worker pool until ready (thread, wasm, warm-up evaluation);
 * - evalOverhead: round trip of a trivial evaluation on a warm worker (fresh QuickJS runtime each);
 * - coldRender: an uncached render of a typical skill body (fresh context, guest runtime parsed again);
 * - warmRender: the same render served from the output cache.
 */
export async function benchSandbox(): Promise<Record<string, number>> {
  const coldPool = new SandboxPool({ size: 1 });
  const coldStartMs = await timed(() => coldPool.warmUp());
  await coldPool.close();

  const pool = new SandboxPool({ size: 1 });
  try {
    const renderer = createTemplateRenderer({ pool });
    await pool.warmUp();

    const overhead: number[] = [];
    for (let i = 0; i < 300; i++) overhead.push(await timed(() => pool.evaluate({ code: "1" })));
    overhead.sort((a, b) => a - b);

    const context = (i: number): RenderContext => ({
      tier: i % 2 === 0 ? "small" : "large",
      recipe: "coding",
      params: { focus: ["tests", "naming", `run ${i}`] },
      args: { scope: "src/main", text: "src/main", words: ["src/main"] },
    });
    const firstRenderMs = await timed(() => renderer.render(BODY, context(-1)));
    const cold: number[] = [];
    for (let i = 0; i < 100; i++) cold.push(await timed(() => renderer.render(BODY, context(i))));
    cold.sort((a, b) => a - b);

    const warmRuns = 2_000;
    const warmTotal = await timed(async () => {
      for (let i = 0; i < warmRuns; i++) await renderer.render(BODY, context(0));
    });

    return {
      sandboxColdStartMs: round(coldStartMs),
      sandboxEvalOverheadP50Ms: round(percentile(overhead, 0.5)),
      sandboxEvalOverheadP99Ms: round(percentile(overhead, 0.99)),
      templateFirstRenderMs: round(firstRenderMs),
      templateColdRenderP50Ms: round(percentile(cold, 0.5)),
      templateColdRenderP99Ms: round(percentile(cold, 0.99)),
      templateWarmRenderMs: round(warmTotal / warmRuns),
    };
  } finally {
    await pool.close();
  }
}
