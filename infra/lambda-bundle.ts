import { join } from "node:path";
import { build, type BuildOptions, type Metafile } from "esbuild";
import type { FunctionName } from "./api-routes.js";
import { BUNDLE_ALIASES, ESM_REQUIRE_SHIM, handlerEntry, NODE_TARGET, PROJECT_ROOT } from "./constructs/skills-function.js";

/**
 * The Lambdas a composed turn runs in: their bundle size and cold init are the ones a user pays on
 * every scale-out. A new function on that path (issue 14's `http-mcp`) joins by its name here and
 * in LAMBDA_BUNDLE_BUDGET_KB; the bench and test/infra/bundle-init-path.test.ts follow.
 */
export const COMPOSITION_PATH_FUNCTIONS: readonly FunctionName[] = ["http-processes", "lane-worker", "http-mcp"];

/**
 * A ceiling per composition-path bundle (KB of minified index.mjs), a regression gate above
 * today's size, not the 300 KB target: the bundled AWS SDK clients alone take ~450 KB
 * (docs/decisions.md, issue 15).
 */
export const LAMBDA_BUNDLE_BUDGET_KB: Readonly<Partial<Record<FunctionName, number>>> = {
  // Third round: the relevance index, level snapshots and the caps added ~15–45 KB (1 264 / 1 291 /
  // 1 626 KB when they landed); issue 31 is to bring all three far below these gates.
  "http-processes": 1_290,
  "lane-worker": 1_315,
  // The MCP SDK (and its zod-to-JSON-Schema) ride on top of the composition path: 1 581 KB when it landed.
  "http-mcp": 1_660,
};

/**
 * Modules the composition path loads on first use through `import()`, never at init. Matched
 * against metafile input paths.
 */
export const LAZY_ON_COMPOSITION_PATH: readonly { name: string; path: RegExp }[] = [
  { name: "nunjucks compiler", path: /node_modules\/nunjucks\/src\/(compiler|parser|lexer|transformer)\.js$/ },
  { name: "QuickJS sandbox wasm", path: /quickjs|@jitl\// },
  // Its context tracking installs an async hook at import: every await of the process gets ~10× dearer.
  { name: "X-Ray SDK (Powertools Tracer)", path: /node_modules\/(aws-xray-sdk-core|cls-hooked|@aws-lambda-powertools\/tracer)\// },
];

/**
 * What CDK's NodejsFunction does by default: leave the AWS SDK to the one in the Lambda runtime.
 * Not deployed (docs/decisions.md, issue 31: it makes cold init slower, not faster); the bundle
 * bench builds this variant beside the deployed one to show the difference.
 */
export const SDK_FROM_RUNTIME: readonly string[] = ["@aws-sdk/*"];

/** The esbuild options SkillsFunction hands NodejsFunction (infra/constructs/skills-function.ts), for one function. */
export const lambdaBundleOptions = (name: FunctionName): BuildOptions => ({
  entryPoints: [join(PROJECT_ROOT, handlerEntry(name))],
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

/** Builds one function's bundle as deployed (or with `external` packages left out), with its metafile; `outfile` undefined keeps it in memory. */
export async function buildLambdaBundle(name: FunctionName, outfile?: string, external: readonly string[] = []): Promise<{ metafile: Metafile; bytes: number }> {
  const result = await build({ ...lambdaBundleOptions(name), external: [...external], metafile: true, ...(outfile === undefined ? { write: false, outfile: join(PROJECT_ROOT, ".bundle", name, "index.mjs") } : { outfile }) });
  const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith(".mjs"));
  if (output === undefined) throw new Error(`esbuild wrote no index.mjs for ${name}`);
  return { metafile: result.metafile, bytes: output[1].bytes };
}

/**
 * The inputs a bundle may evaluate at init: everything reachable from the entry through `import`
 * statements and `require()` calls (the metafile cannot tell a top-level require from one inside a
 * function, so both count: an over-estimate, never an under-estimate). A module reached only
 * through `import()` is bundled but runs on first use.
 */
export function initPathInputs(metafile: Metafile, name: FunctionName): Set<string> {
  const entry = handlerEntry(name);
  const seen = new Set<string>();
  const pending = Object.keys(metafile.inputs).filter((path) => path === entry || path.endsWith(`/${entry}`));
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const edge of metafile.inputs[path]?.imports ?? []) {
      if (edge.kind !== "dynamic-import" && !edge.external) pending.push(edge.path);
    }
  }
  return seen;
}

/** Bytes of minified output per package (node_modules/<pkg>) or project folder (shared/<area>), largest first. */
export function bytesByPackage(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split("/").slice(0, 2).join("/");
      totals.set(pkg, (totals.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}
