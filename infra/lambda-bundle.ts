import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Metafile } from "esbuild";
import type { FunctionName } from "./api-routes.js";

/** The repository root: entries, shared/bundled and the lock file are all found from here. */
export const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where a handler's code lives, relative to the project root. */
export const handlerEntry = (name: FunctionName): string => `functions/${name}/handler.ts`;

/** ESM bundles still contain CommonJS dependencies that call `require` for Node built-ins; every chunk gets its own. */
export const ESM_REQUIRE_SHIM =
  "import { createRequire as __skillsCreateRequire } from 'node:module'; const require = __skillsCreateRequire(import.meta.url);";

export const NODE_TARGET = "node22";

/** The file Lambda's handler string names (`index.handler`); the chunks it imports sit beside it. */
export const HANDLER_FILE = "index.mjs";

/**
 * Module substitutions in the Lambda bundles: the SDK's default credential chain becomes the
 * environment provider (Lambda always sets the role's keys there; see the module's comment), and
 * ajv, which the MCP SDK imports for its default JSON-schema validator, becomes a stub that throws
 * if ever constructed: the MCP server is given a validator of its own (shared/app/mcp/mcp-json-schema-validator.ts).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  "@aws-sdk/credential-provider-node": "./shared/aws/aws-lambda-credentials.ts",
  ajv: "./shared/app/mcp/ajv-not-bundled.ts",
  "ajv-formats": "./shared/app/mcp/ajv-not-bundled.ts",
};

/**
 * The Lambdas a composed turn runs in: their bundle size and cold init are the ones a user pays on
 * every scale-out. A new function on that path (issue 14's `http-mcp`) joins by its name here and
 * in LAMBDA_BUNDLE_BUDGET_KB; the bench and test/infra/bundle-init-path.test.ts follow.
 */
export const COMPOSITION_PATH_FUNCTIONS: readonly FunctionName[] = ["http-processes", "lane-worker", "http-mcp"];

/**
 * A ceiling per composition-path bundle: KB of minified code loaded at init (index.mjs and the
 * chunks it imports statically; lazy chunks and lazy-*.cjs not counted). A regression gate ~3 %
 * above the size of the last change that shrank it, not the 350 KB target: the bundled AWS SDK
 * (~400 KB) is still on the init path, and http-mcp's MCP SDK brings classic zod (~100 KB) of its
 * own (docs/decisions.md, issue 31: bundles).
 */
export const LAMBDA_BUNDLE_BUDGET_KB: Readonly<Partial<Record<FunctionName, number>>> = {
  // Issue 31 (splitting, lazy yaml/re2js, no ajv): 815 / 841 / 929 KB, from 1 264 / 1 291 / 1 626.
  // Issue 31 (zod/mini in all of shared/): 765 / 793 / 945 KB, from 830 / 858 / 945; http-mcp keeps 957.
  // Issue 31 (lane worker: SQS, WebSocket push, sandbox and guards on first use): 720 KB, from 802.
  // Issue 31 (http-processes: no SQS client, it never enqueues; the renderer on first use): 711 KB, from 775.
  "http-processes": 732,
  "lane-worker": 741,
  "http-mcp": 957,
};

/** A module (or package) a bundle loads on first use through `import()`, matched against metafile input paths. */
export interface LazyModule {
  name: string;
  path: RegExp;
}

/** Modules the composition path loads on first use through `import()`, never at init. */
export const LAZY_ON_COMPOSITION_PATH: readonly LazyModule[] = [
  { name: "nunjucks compiler", path: /node_modules\/nunjucks\/src\/(compiler|parser|lexer|transformer)\.js$/ },
  { name: "QuickJS sandbox wasm", path: /quickjs|@jitl\// },
  // Its context tracking installs an async hook at import: every await of the process gets ~10× dearer.
  { name: "X-Ray SDK (Powertools Tracer)", path: /node_modules\/(aws-xray-sdk-core|cls-hooked|@aws-lambda-powertools\/tracer)\// },
  // Required on first parse / pattern compile from their own files (shared/lazy/lazy-libraries.ts).
  { name: "YAML parser", path: /node_modules\/yaml\// },
  { name: "re2js", path: /node_modules\/re2js\// },
  // The MCP SDK's default validator: the server is given its own (shared/app/mcp/mcp-json-schema-validator.ts).
  { name: "ajv", path: /node_modules\/ajv(-formats)?\// },
];

/**
 * Modules one function loads on first use, beyond LAZY_ON_COMPOSITION_PATH: the others load them at
 * init because their requests need them. The lane worker's composed turn enqueues nothing, pushes
 * only to subscribers, renders only template bodies and runs guards only on completion
 * (shared/wiring/lane-worker-adapters.ts); http-steer, http-tools, http-mcp and ws-default enqueue
 * on their requests. http-processes builds no SQS client at all (nothing there enqueues) and, like
 * the lane worker, loads the template renderer with the first body that has template syntax.
 */
const TEMPLATE_RENDERER_ON_FIRST_USE: readonly LazyModule[] = [
  { name: "template renderer (nunjucks guest runtime)", path: /shared\/templates\/(sandboxed-template-renderer|vendor\/.*)\.ts$/ },
  { name: "sandbox pool", path: /shared\/sandbox\/(sandbox-pool|sandbox-scheduler|sandbox-worker-handle|script-runtime)\.ts$/ },
];

export const LAZY_IN_FUNCTION: Readonly<Partial<Record<FunctionName, readonly LazyModule[]>>> = {
  "http-processes": TEMPLATE_RENDERER_ON_FIRST_USE,
  "lane-worker": [
    { name: "SQS client", path: /node_modules\/@aws-sdk\/(client-sqs|middleware-sdk-sqs)\// },
    { name: "WebSocket management API client", path: /node_modules\/@aws-sdk\/client-apigatewaymanagementapi\// },
    ...TEMPLATE_RENDERER_ON_FIRST_USE,
    {
      name: "guard runner and LLM client",
      path: /shared\/(guards\/sandboxed-guard-runner|llm\/openai-chat-llm|auth\/aws-secrets-extension)\.ts$/,
    },
  ],
};

/**
 * What CDK's NodejsFunction does by default: leave the AWS SDK to the one in the Lambda runtime.
 * The bench builds both variants side by side (docs/decisions.md, issue 31: bundles).
 */
export const SDK_FROM_RUNTIME: readonly string[] = ["@aws-sdk/*"];

/**
 * The switch: where the deployed functions take the AWS SDK from. "bundled" ships the tested SDK
 * inside the chunks; "runtime" leaves `@aws-sdk/*` external, resolved from the Lambda runtime's
 * own copy. Decided by cold init, measured (docs/decisions.md, issue 31: bundles).
 */
export const AWS_SDK_SOURCE: "bundled" | "runtime" = "bundled";

/** esbuild's `external` for a given SDK source. */
export const externalFor = (sdk: "bundled" | "runtime"): readonly string[] => (sdk === "runtime" ? SDK_FROM_RUNTIME : []);

/**
 * The esbuild options of one function's Lambda asset (infra/write-lambda-asset.ts): ESM with code
 * splitting, so a module reached only through `import()` (nunjucks' compiler, re2js, yaml, the
 * X-Ray SDK, …) lands in its own chunk file, read and compiled only when first imported.
 */
export const lambdaBundleOptions = (
  name: FunctionName,
  outdir: string,
  external: readonly string[] = externalFor(AWS_SDK_SOURCE),
): BuildOptions => ({
  entryPoints: { index: join(PROJECT_ROOT, handlerEntry(name)) },
  bundle: true,
  splitting: true,
  outdir,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunk-[hash]",
  platform: "node",
  format: "esm",
  target: NODE_TARGET,
  // SKILLS_PROFILE_BUILD=1: readable function names in CPU profiles (bench/cold-turn-bench.ts); never set for a deploy.
  minify: process.env.SKILLS_PROFILE_BUILD !== "1",
  sourcemap: true,
  sourcesContent: false,
  mainFields: ["module", "main"],
  banner: { js: ESM_REQUIRE_SHIM },
  alias: { ...BUNDLE_ALIASES },
  define: {
    // shared/lazy/lazy-libraries.ts: yaml and re2js are files beside the code (writeLambdaAsset), required on first use.
    SKILLS_LAZY_LIBRARY_FILES: "true",
    // functions/_shared/source-mapped-stacks.ts: map sources are relative to the asset directory; frames print relative to the project root.
    SKILLS_SOURCE_ROOT: JSON.stringify(`${relative(resolve(PROJECT_ROOT, outdir), PROJECT_ROOT)}/`),
  },
  external: [...external],
  metafile: true,
  logLevel: "warning",
  absWorkingDir: PROJECT_ROOT,
});

export interface LambdaBundle {
  metafile: Metafile;
  /** Bytes read and compiled at init: index.mjs and the chunks it imports statically. */
  bytes: number;
  /** Bytes of every .mjs file of the asset, lazy chunks included. */
  totalBytes: number;
}

/** Output files (paths as in the metafile) that load at init: the entry and its static chunk imports, transitively. */
export function initOutputs(metafile: Metafile): Set<string> {
  const entry = Object.keys(metafile.outputs).find((path) => path.endsWith(`/${HANDLER_FILE}`) || path === HANDLER_FILE);
  if (entry === undefined) throw new Error(`esbuild wrote no ${HANDLER_FILE}`);
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const edge of metafile.outputs[path]?.imports ?? []) {
      if (edge.kind === "import-statement" && !edge.external) pending.push(edge.path);
    }
  }
  return seen;
}

/** Sizes of a built asset from its metafile. */
export function bundleSizes(metafile: Metafile): Omit<LambdaBundle, "metafile"> {
  const atInit = initOutputs(metafile);
  const code = Object.entries(metafile.outputs).filter(([path]) => path.endsWith(".mjs"));
  const sum = (entries: typeof code): number => entries.reduce((total, [, output]) => total + output.bytes, 0);
  return { bytes: sum(code.filter(([path]) => atInit.has(path))), totalBytes: sum(code) };
}

/** Builds one function's code as deployed (or with `external` packages left out); `outdir` undefined keeps it in memory. */
export async function buildLambdaBundle(name: FunctionName, outdir?: string, external?: readonly string[]): Promise<LambdaBundle> {
  const result = await build({
    ...lambdaBundleOptions(name, outdir ?? join(PROJECT_ROOT, ".bundle", name), external),
    write: outdir !== undefined,
  });
  const metafile = result.metafile as Metafile;
  return { metafile, ...bundleSizes(metafile) };
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

/** Bytes of minified output per package (node_modules/<pkg>) or project folder (shared/<area>), largest first; `only` keeps those output files. */
export function bytesByPackage(metafile: Metafile, only?: ReadonlySet<string>): [string, number][] {
  const totals = new Map<string, number>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (only !== undefined && !only.has(file)) continue;
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split("/").slice(0, 2).join("/");
      totals.set(pkg, (totals.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}
