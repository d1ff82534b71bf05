import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { FUNCTION_NAMES } from "../infra/api-routes.js";
import type { FunctionName } from "../infra/api-routes.js";
import { BUNDLE_ALIASES, ESM_REQUIRE_SHIM, handlerEntry, NODE_TARGET, PROJECT_ROOT } from "../infra/constructs/skills-function.js";
import { placeholderFunctionEnvironment } from "../infra/placeholder-environment.js";
import { FUNCTION_SETTINGS } from "../infra/skills-stack.js";
import type { BenchRow } from "./bench-table.js";

/**
 * Per Lambda: the size of its esbuild bundle and the time a fresh Node process needs to import it
 * and reach `handler` (the module-scope work of a cold start, without the runtime's own boot).
 * The options are the ones SkillsFunction hands NodejsFunction (infra/constructs/skills-function.ts):
 * ESM, minified, node22, source maps without sources, module-first main fields, the createRequire
 * banner, the module aliases, the AWS SDK bundled.
 */

const RUNS = 5;

async function bundle(name: FunctionName, outDir: string): Promise<string> {
  const outfile = join(outDir, "index.mjs");
  await build({
    entryPoints: [join(PROJECT_ROOT, handlerEntry(name))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: NODE_TARGET,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ["module", "main"],
    banner: { js: ESM_REQUIRE_SHIM },
    alias: { ...BUNDLE_ALIASES },
    logLevel: "warning",
    absWorkingDir: PROJECT_ROOT,
  });
  // The afterBundling hook copies the RESOURCE layer beside bundles that load skills.
  if (FUNCTION_SETTINGS[name].loadsSkills) cpSync(join(PROJECT_ROOT, "shared/bundled"), join(outDir, "bundled"), { recursive: true });
  return outfile;
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

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export async function benchBundles(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "skills-bundle-bench-"));
  const sizes: BenchRow[] = [];
  const inits: BenchRow[] = [];
  try {
    for (const name of FUNCTION_NAMES) {
      const outDir = join(root, name);
      mkdirSync(outDir, { recursive: true });
      const outfile = await bundle(name, outDir);
      sizes.push({ metric: `bundle_kb_${name}`, ours: statSync(outfile).size / 1024, baseline: null, unit: "KB", note: "index.mjs, minified" });
      const env = functionEnv(outDir);
      const samples = Array.from({ length: RUNS }, () => coldInitMs(outfile, env, outDir));
      inits.push({ metric: `cold_init_ms_${name}`, ours: median(samples), baseline: null, unit: "ms", note: `import → handler, fresh node, median of ${RUNS}` });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return [...sizes, ...inits];
}
