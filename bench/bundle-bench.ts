import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Metafile } from "esbuild";
import { FUNCTION_NAMES } from "../infra/api-routes.js";
import type { FunctionName } from "../infra/api-routes.js";
import { PROJECT_ROOT } from "../infra/constructs/skills-function.js";
import { buildLambdaBundle, bytesByPackage, COMPOSITION_PATH_FUNCTIONS } from "../infra/lambda-bundle.js";
import { placeholderFunctionEnvironment } from "../infra/placeholder-environment.js";
import { FUNCTION_SETTINGS } from "../infra/skills-stack.js";
import { repeated, type BenchRow } from "./bench-table.js";
import { REPETITIONS } from "./bench-mode.js";

/**
 * Per Lambda: the size of its esbuild bundle and the time a fresh Node process needs to import it
 * and reach `handler` (the module-scope work of a cold start, without the runtime's own boot).
 * The options are the ones SkillsFunction hands NodejsFunction (infra/lambda-bundle.ts). Each
 * cold init is the median of REPETITIONS fresh processes, with their spread.
 */

async function bundle(name: FunctionName, outDir: string): Promise<{ outfile: string; metafile: Metafile }> {
  const outfile = join(outDir, "index.mjs");
  const { metafile } = await buildLambdaBundle(name, outfile);
  // The afterBundling hook copies the RESOURCE layer beside bundles that load skills.
  if (FUNCTION_SETTINGS[name].loadsSkills) cpSync(join(PROJECT_ROOT, "shared/bundled"), join(outDir, "bundled"), { recursive: true });
  return { outfile, metafile };
}

/** A deployed function's environment (source maps on, as the stack sets them), with placeholder resources. */
const functionEnv = (outDir: string): NodeJS.ProcessEnv => ({
  ...placeholderFunctionEnvironment(join(outDir, "bundled")),
  NODE_OPTIONS: "--enable-source-maps",
  POWERTOOLS_LOG_LEVEL: "ERROR",
});

/** Milliseconds from just before `import()` to `handler` being a function, in a fresh process. */
function coldInitMs(outfile: string, env: NodeJS.ProcessEnv, cwd: string): number {
  const probe = [
    "const started = performance.now();",
    `const mod = await import(${JSON.stringify(pathToFileURL(outfile).href)});`,
    "const elapsed = performance.now() - started;",
    "if (typeof mod.handler !== 'function') { console.error('no handler export'); process.exit(2); }",
    "process.stdout.write(String(elapsed));",
    "process.exit(0);",
  ].join(" ");
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd, env, encoding: "utf8", timeout: 60_000 });
  const elapsed = Number.parseFloat(result.stdout);
  if (result.status !== 0 || !Number.isFinite(elapsed)) {
    throw new Error(`Importing ${outfile} failed (exit ${String(result.status)}): ${result.stderr.slice(0, 2000)}`);
  }
  return elapsed;
}

/** Each function's init ÷ the authorizer's, pairing the fresh processes of one repetition (run side by side, so a slow moment of the machine hits both). */
export function coldInitRatioRows(samples: ReadonlyMap<FunctionName, readonly number[]>): BenchRow[] {
  const authorizer = samples.get("authorizer");
  if (authorizer === undefined) throw new Error("the cold-init ratios need the authorizer's samples");
  return [...samples].map(([name, own]) => ({
    metric: `cold_init_ratio_${name}`,
    ...repeated(own.map((ms, i) => ms / (authorizer[i] as number))),
    baseline: null,
    unit: "×",
    note: `cold init ÷ the authorizer's in the same repetition${COMPOSITION_PATH_FUNCTIONS.includes(name) ? "; target ≤ 3.5×" : ""}`,
  }));
}

export async function benchBundles(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "skills-bundle-bench-"));
  const sizes: BenchRow[] = [];
  const inits: BenchRow[] = [];
  try {
    const built: { name: FunctionName; outfile: string; outDir: string }[] = [];
    for (const name of FUNCTION_NAMES) {
      const outDir = join(root, name);
      mkdirSync(outDir, { recursive: true });
      const { outfile, metafile } = await bundle(name, outDir);
      const onPath = COMPOSITION_PATH_FUNCTIONS.includes(name);
      // Where the bytes go, for the functions whose size is a target: the five largest packages.
      const largest = bytesByPackage(metafile)
        .slice(0, 5)
        .map(([pkg, bytes]) => `${pkg} ${(bytes / 1024).toFixed(0)}`)
        .join(", ");
      sizes.push({ metric: `bundle_kb_${name}`, ours: statSync(outfile).size / 1024, baseline: null, unit: "KB", note: onPath ? `target ≤ 300 KB; largest KB: ${largest}` : "index.mjs, minified" });
      built.push({ name, outfile, outDir });
    }
    // Repetition by repetition, every function once: the ratio rows pair samples of one round.
    const samples = new Map<FunctionName, number[]>(built.map(({ name }) => [name, []]));
    for (let round = 0; round < REPETITIONS; round++) {
      for (const { name, outfile, outDir } of built) samples.get(name)?.push(coldInitMs(outfile, functionEnv(outDir), outDir));
    }
    for (const { name } of built) {
      const onPath = COMPOSITION_PATH_FUNCTIONS.includes(name);
      inits.push({ metric: `cold_init_ms_${name}`, ...repeated(samples.get(name) ?? []), baseline: null, unit: "ms", note: `import → handler, fresh node each${onPath ? "; target ≤ 150 ms" : ""}` });
    }
    inits.push(...coldInitRatioRows(samples));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return [...sizes, ...inits];
}
