import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildSync, type Metafile } from "esbuild";
import { FUNCTION_NAMES } from "../infra/api-routes.js";
import type { FunctionName } from "../infra/api-routes.js";
import {
  AWS_SDK_SOURCE,
  bundleSizes,
  bytesByPackage,
  COMPOSITION_PATH_FUNCTIONS,
  externalFor,
  HANDLER_FILE,
  initOutputs,
  lambdaBundleOptions,
  PROJECT_ROOT,
} from "../infra/lambda-bundle.js";
import { writeLambdaAsset } from "../infra/write-lambda-asset.js";
import { placeholderFunctionEnvironment } from "../infra/placeholder-environment.js";
import { FUNCTION_SETTINGS } from "../infra/skills-stack.js";
import { median, repeated, type BenchRow } from "./bench-table.js";
import { REPETITIONS } from "./bench-mode.js";

/**
 * Per Lambda: the size of its esbuild bundle and the time a fresh Node process needs to import it
 * and reach `handler` (the module-scope work of a cold start, without the runtime's own boot).
 * The assets are the ones SkillsFunction deploys (infra/write-lambda-asset.ts). Each
 * cold init is the median of REPETITIONS fresh processes, with their spread, and its ratio to the
 * authorizer's init of the same round (steady from one day to the next where milliseconds swing).
 */

/** The AWS SDK variant not deployed (the AWS_SDK_SOURCE switch), built beside the deployed one. */
const OTHER_SDK_SOURCE = AWS_SDK_SOURCE === "bundled" ? "runtime" : "bundled";
const OTHER_SDK_SUFFIX = OTHER_SDK_SOURCE === "runtime" ? "_sdk_from_runtime" : "_sdk_bundled";
const OTHER_SDK_NOTE =
  OTHER_SDK_SOURCE === "runtime"
    ? "not deployed: @aws-sdk/* left to the runtime, as NodejsFunction's default"
    : "not deployed: the AWS SDK bundled into the chunks";

/** One function's asset as deployed (infra/write-lambda-asset.ts), or with `external` packages left out. */
function bundle(
  name: FunctionName,
  outDir: string,
  external: readonly string[] = externalFor(AWS_SDK_SOURCE),
): { outfile: string; metafile: Metafile } {
  const metafile = writeLambdaAsset(name, outDir, FUNCTION_SETTINGS[name], external);
  return { outfile: join(outDir, HANDLER_FILE), metafile };
}

/**
 * The AWS SDK clients alone (bench/sdk-floor-entry.ts), bundled as a function is: the part of a
 * composition-path function's init that no change to the service can remove while it bundles them.
 */
function bundleSdkFloor(outDir: string): { outfile: string; metafile: Metafile } {
  const options = lambdaBundleOptions("authorizer", outDir);
  const { metafile } = buildSync({ ...options, entryPoints: { index: join(PROJECT_ROOT, "bench/sdk-floor-entry.ts") }, write: true });
  return { outfile: join(outDir, HANDLER_FILE), metafile: metafile as Metafile };
}

/** KB loaded at init (index.mjs and its static chunks) and of the whole asset's code. */
const sizeOf = (metafile: Metafile): { initKb: number; totalKb: number } => {
  const { bytes, totalBytes } = bundleSizes(metafile);
  return { initKb: bytes / 1024, totalKb: totalBytes / 1024 };
};

/** A deployed function's environment (no Node flags: a bundle maps its stack traces itself), with placeholder resources. */
const functionEnv = (outDir: string): NodeJS.ProcessEnv => ({
  ...placeholderFunctionEnvironment(join(outDir, "bundled")),
  NODE_OPTIONS: "",
  POWERTOOLS_LOG_LEVEL: "ERROR",
});

/** Awaits timed after init: an async hook (the X-Ray SDK's, once loaded) makes each one ~10× dearer. */
const AWAITS = 300_000;

interface InitSample {
  /** Milliseconds from just before `import()` to `handler` being a function. */
  initMs: number;
  /** CPU milliseconds (user + system, all threads) of the same span: what a loaded machine's preemption does not inflate. */
  initCpuMs: number;
  /** Milliseconds for AWAITS sequential `await null` right after. */
  awaitsMs: number;
}

/** One fresh process: import the bundle (none for `outfile` undefined, the bare baseline), then time the awaits. */
function coldInit(outfile: string | undefined, env: NodeJS.ProcessEnv, cwd: string): InitSample {
  const probe = [
    "const cpuStarted = process.cpuUsage(); const started = performance.now();",
    outfile === undefined ? "const mod = { handler() {} };" : `const mod = await import(${JSON.stringify(pathToFileURL(outfile).href)});`,
    "const elapsed = performance.now() - started; const cpu = process.cpuUsage(cpuStarted);",
    "if (typeof mod.handler !== 'function') { console.error('no handler export'); process.exit(2); }",
    `const awaitsStarted = performance.now(); for (let i = 0; i < ${AWAITS}; i++) await null;`,
    "process.stdout.write(JSON.stringify({ initMs: elapsed, initCpuMs: (cpu.user + cpu.system) / 1000, awaitsMs: performance.now() - awaitsStarted }));",
    "process.exit(0);",
  ].join(" ");
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd, env, encoding: "utf8", timeout: 60_000 });
  const sample = result.status === 0 ? (JSON.parse(result.stdout) as InitSample) : undefined;
  if (sample === undefined || !Number.isFinite(sample.initMs)) {
    throw new Error(`Importing ${outfile ?? "nothing"} failed (exit ${String(result.status)}): ${result.stderr.slice(0, 2000)}`);
  }
  return sample;
}

/** Each function's init ÷ the authorizer's, pairing the fresh processes of one repetition (run side by side, so a slow moment of the machine hits both). */
export function coldInitRatioRow(metric: string, own: readonly number[], authorizer: readonly number[], note: string): BenchRow {
  return { metric, ...repeated(own.map((ms, i) => ms / (authorizer[i] as number))), baseline: null, unit: "×", note };
}

/** Functions also built with the other AWS SDK source, to show the difference in init. */
const OTHER_SDK_SHOWN: readonly FunctionName[] = [...COMPOSITION_PATH_FUNCTIONS, "s3-events"];

interface Built {
  key: string;
  name: FunctionName;
  outfile: string;
  outDir: string;
}

export async function benchBundles(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "skills-bundle-bench-"));
  // The runtime's SDK is a node_modules folder beside the code: the project's own stands in for it,
  // found by Node's resolution from a folder inside the project.
  mkdirSync(join(PROJECT_ROOT, "node_modules/.cache"), { recursive: true });
  const runtimeRoot = mkdtempSync(join(PROJECT_ROOT, "node_modules/.cache/skills-bundle-bench-"));
  const sizes: BenchRow[] = [];
  const rows: BenchRow[] = [];
  try {
    const built: Built[] = [];
    for (const name of FUNCTION_NAMES) {
      const outDir = join(root, name);
      mkdirSync(outDir, { recursive: true });
      const { outfile, metafile } = bundle(name, outDir);
      const onPath = COMPOSITION_PATH_FUNCTIONS.includes(name);
      // Where the bytes loaded at init go, for the functions whose size is a target: the five largest packages.
      const largest = bytesByPackage(metafile, initOutputs(metafile))
        .slice(0, 5)
        .map(([pkg, bytes]) => `${pkg} ${(bytes / 1024).toFixed(0)}`)
        .join(", ");
      const { initKb, totalKb } = sizeOf(metafile);
      sizes.push({
        metric: `bundle_kb_${name}`,
        ours: initKb,
        baseline: null,
        unit: "KB",
        note: `loaded at init (index.mjs + static chunks; ${totalKb.toFixed(0)} KB with lazy chunks)${onPath ? `; target ≤ 350 KB (http-mcp 450); largest KB: ${largest}` : ""}`,
      });
      built.push({ key: name, name, outfile, outDir });
    }
    for (const name of OTHER_SDK_SHOWN) {
      const outDir = join(runtimeRoot, name);
      mkdirSync(outDir, { recursive: true });
      const { outfile, metafile } = bundle(name, outDir, externalFor(OTHER_SDK_SOURCE));
      sizes.push({
        metric: `bundle_kb_${name}${OTHER_SDK_SUFFIX}`,
        ours: sizeOf(metafile).initKb,
        baseline: null,
        unit: "KB",
        note: OTHER_SDK_NOTE,
      });
      built.push({ key: `${name}${OTHER_SDK_SUFFIX}`, name, outfile, outDir });
    }
    const floorDir = join(root, "sdk-floor");
    const floor = bundleSdkFloor(floorDir);
    sizes.push({
      metric: "bundle_kb_sdk_floor",
      ours: sizeOf(floor.metafile).initKb,
      baseline: null,
      unit: "KB",
      note: "the S3 and DynamoDB clients and commands every composition-path function bundles, alone (bench/sdk-floor-entry.ts)",
    });
    // Repetition by repetition, every bundle once: the ratio rows pair samples of one round.
    const floorInits: InitSample[] = [];
    const samples = new Map<string, InitSample[]>([["bare", []], ...built.map(({ key }) => [key, []] as [string, InitSample[]])]);
    for (let round = 0; round < REPETITIONS; round++) {
      samples.get("bare")?.push(coldInit(undefined, functionEnv(root), root));
      for (const { key, outfile, outDir } of built) samples.get(key)?.push(coldInit(outfile, functionEnv(outDir), outDir));
      floorInits.push(coldInit(floor.outfile, functionEnv(floorDir), floorDir));
    }
    const initsOf = (key: string): number[] => (samples.get(key) ?? []).map((sample) => sample.initMs);
    const authorizer = initsOf("authorizer");
    for (const { key, name } of built) {
      const onPath = COMPOSITION_PATH_FUNCTIONS.includes(name);
      if (key === name)
        rows.push({
          metric: `cold_init_ms_${name}`,
          ...repeated(initsOf(key)),
          baseline: null,
          unit: "ms",
          note: `import → handler, fresh node each${onPath ? "; target ≤ 150 ms" : ""}`,
        });
    }
    for (const { key, name } of built) {
      const onPath = COMPOSITION_PATH_FUNCTIONS.includes(name);
      const note =
        key === name
          ? `init ÷ the authorizer's in the same round${onPath ? "; target ≤ 3.5×" : ""}`
          : `${OTHER_SDK_NOTE} (a runtime SDK is the project's node_modules), ÷ the deployed authorizer's init`;
      rows.push(coldInitRatioRow(`cold_init_ratio_${key}`, initsOf(key), authorizer, note));
    }
    rows.push(
      coldInitRatioRow(
        "cold_init_ratio_sdk_floor",
        floorInits.map((sample) => sample.initMs),
        authorizer,
        "the AWS SDK clients alone (bundle_kb_sdk_floor) ÷ the authorizer's init: the budget of 3.5× they leave to the service",
      ),
    );
    const cpuOf = (key: string): number[] => (samples.get(key) ?? []).map((sample) => sample.initCpuMs);
    for (const { key, name } of built) {
      if (!COMPOSITION_PATH_FUNCTIONS.includes(name) && name !== "authorizer") continue;
      rows.push(
        coldInitRatioRow(
          `cold_init_cpu_ratio_${key}`,
          cpuOf(key),
          cpuOf("authorizer"),
          "init CPU time ÷ the authorizer's in the same round (steadier than wall time on a loaded machine)",
        ),
      );
    }
    const bareAwaits = median((samples.get("bare") ?? []).map((sample) => sample.awaitsMs));
    for (const name of COMPOSITION_PATH_FUNCTIONS) {
      const awaits = (samples.get(name) ?? []).map((sample) => sample.awaitsMs);
      rows.push({
        metric: `awaits_300k_ms_${name}`,
        ...repeated(awaits),
        baseline: bareAwaits,
        unit: "ms",
        note: "300 000 awaits after init (tracing off); baseline: a bare node process",
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(runtimeRoot, { recursive: true, force: true });
  }
  return [...sizes, ...rows];
}
