import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { App } from "aws-cdk-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNCTION_NAMES, type FunctionName } from "../../infra/api-routes.js";
import { PROJECT_ROOT, QUICKJS_WASM_FILE, SANDBOX_WORKER_FILE } from "../../infra/constructs/skills-function.js";
import { placeholderFunctionEnvironment } from "../../infra/placeholder-environment.js";
import { FUNCTION_SETTINGS, SkillsStack } from "../../infra/skills-stack.js";
import { LAZY_LIBRARY_NAMES, lazyLibraryFile } from "../../shared/lazy/lazy-libraries.js";
import { SandboxError, SandboxOutputTooLarge } from "../../shared/sandbox/sandbox-errors.js";
import { SandboxPool } from "../../shared/sandbox/sandbox-pool.js";

/** Infrastructure modules a handler may import: plain data, no CDK. */
const CDK_FREE_INFRA = ["infra/function-environment.ts", "infra/api-routes.ts"];

const filesUnder = (root: string, dir = root): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(root, path) : [relative(root, path)];
  });

/**
 * Imports a bundle in a fresh Node process with `async_hooks.createHook` spied on (the X-Ray SDK's
 * context tracking calls it at load), lets loads started at init finish, and reports.
 */
function importInFreshProcess(
  dir: string,
  env: NodeJS.ProcessEnv,
  settleMs = 300,
): { report: { handler: string; asyncHooks: number; xray: boolean } | undefined; stderr: string; status: number | null } {
  const probe = [
    "import asyncHooks from 'node:async_hooks';",
    "let created = 0; const createHook = asyncHooks.createHook;",
    "asyncHooks.createHook = (...args) => { created += 1; return createHook(...args); };",
    `const m = await import(${JSON.stringify(pathToFileURL(join(dir, "index.mjs")).href)});`,
    // A load started at init reads its chunk file asynchronously: give it until the mark appears or settleMs pass.
    `for (const until = Date.now() + ${settleMs}; Date.now() < until && !('namespaces' in process); ) await new Promise((resolve) => setTimeout(resolve, 10));`,
    // Bundled, the X-Ray SDK's modules are not in require.cache: its context library (cls-hooked) marks `process.namespaces` at load.
    "const xray = 'namespaces' in process;",
    "console.log(JSON.stringify({ handler: typeof m.handler, asyncHooks: created, xray }));",
    "process.exit(0);",
  ].join(" ");
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
  const line = result.stdout.trim().split("\n").pop() ?? "";
  return {
    report: line.startsWith("{") ? (JSON.parse(line) as { handler: string; asyncHooks: number; xray: boolean }) : undefined,
    stderr: result.stderr,
    status: result.status,
  };
}

let outdir: string;
let assetDirs: Record<FunctionName, string>;

beforeAll(() => {
  // One real synthesis: esbuild for every function plus the afterBundling hooks.
  outdir = mkdtempSync(join(tmpdir(), "skills-cdk-bundles-"));
  const app = new App({ outdir, builtinCloudFormationValidation: false });
  const stack = new SkillsStack(app, "SkillsService");
  const template = app.synth().getStackByName(stack.stackName).template as {
    Resources: Record<string, { Properties: { Code: { S3Key: string } } }>;
  };
  assetDirs = Object.fromEntries(
    FUNCTION_NAMES.map((name) => {
      const key = template.Resources[stack.getLogicalId(stack.functions[name].node.defaultChild as never)]!.Properties.Code.S3Key;
      return [name, join(outdir, `asset.${key.replace(/\.zip$/, "")}`)];
    }),
  ) as Record<FunctionName, string>;
});

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe("function bundles", () => {
  it.each(FUNCTION_NAMES)("%s is a minified ESM bundle with a source map and the createRequire shim", (name) => {
    // Prepare
    const dir = assetDirs[name];

    // Act
    const code = readFileSync(join(dir, "index.mjs"), "utf8");
    const map = JSON.parse(readFileSync(join(dir, "index.mjs.map"), "utf8")) as { sources: string[]; sourcesContent?: unknown };

    // Assess
    expect(code.startsWith("import { createRequire as __skillsCreateRequire } from 'node:module';")).toBe(true);
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    expect(map.sources.some((source) => source.endsWith(`functions/${name}/handler.ts`))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();
  });

  it.each(FUNCTION_NAMES)(
    "%s gives every chunk the createRequire shim (their resolution is checked by loading them from a folder without node_modules, below)",
    (name) => {
      // Prepare
      const dir = assetDirs[name];

      // Act
      const chunks = readdirSync(dir).filter((file) => file.startsWith("chunk-") && file.endsWith(".mjs"));
      const withoutShim = chunks.filter(
        (file) =>
          !readFileSync(join(dir, file), "utf8").startsWith("import { createRequire as __skillsCreateRequire } from 'node:module';"),
      );

      // Assess
      expect(withoutShim).toEqual([]);
    },
  );

  it.each(FUNCTION_NAMES)("%s contains neither the CDK, the QuickJS sandbox nor ajv", (name) => {
    // Prepare
    const maps = readdirSync(assetDirs[name]).filter((file) => /^(index|chunk-[A-Z0-9]+)\.mjs\.map$/.test(file));

    // Act
    const sources = maps.flatMap((file) =>
      (JSON.parse(readFileSync(join(assetDirs[name], file), "utf8")) as { sources: string[] }).sources.map((source) =>
        relative(PROJECT_ROOT, join(assetDirs[name], source)).split("\\").join("/"),
      ),
    );

    // Assess
    expect(sources.filter((source) => /node_modules\/(aws-cdk-lib|constructs|aws-cdk)\//.test(source))).toEqual([]);
    expect(sources.filter((source) => source.startsWith("infra/") && !CDK_FREE_INFRA.includes(source))).toEqual([]);
    expect(sources.filter((source) => /quickjs|@jitl/.test(source))).toEqual([]);
    // The MCP SDK's default validator: the server has its own (shared/app/mcp/mcp-json-schema-validator.ts).
    expect(sources.filter((source) => /node_modules\/ajv(-formats)?\//.test(source))).toEqual([]);
  });

  it.each(FUNCTION_NAMES)("%s takes SDK credentials from the environment only: no SSO, INI, process, web-identity or STS code", (name) => {
    // Prepare
    const map = {
      sources: readdirSync(assetDirs[name])
        .filter((file) => file.endsWith(".mjs.map"))
        .flatMap((file) => (JSON.parse(readFileSync(join(assetDirs[name], file), "utf8")) as { sources: string[] }).sources),
    };
    const usesSdk = map.sources.some((source) => /node_modules\/@aws-sdk\/client-/.test(source));

    // Act
    const chain = map.sources.filter((source) =>
      /credential-provider-(node|sso|ini|process|web-identity|login|http)|nested-clients|token-providers/.test(source),
    );
    const fromEnv = map.sources.filter((source) => /credential-provider-env/.test(source));

    // Assess
    expect(chain).toEqual([]);
    expect(fromEnv.length > 0).toBe(usesSdk);
  });

  it.each(FUNCTION_NAMES)("%s ships the bundled skills (with their parse outcomes) and the sandbox worker only if it uses them", (name) => {
    // Prepare
    const settings = FUNCTION_SETTINGS[name];
    const dir = assetDirs[name];

    // Act
    const files = filesUnder(dir).sort();

    // Assess
    const chunks = files.filter((file) => /^chunk-[A-Z0-9]+\.mjs(\.map)?$/.test(file));
    expect(chunks.filter((file) => file.endsWith(".mjs")).map((file) => `${file}.map`)).toEqual(
      chunks.filter((file) => file.endsWith(".map")),
    );
    // Both lazy libraries or neither (shared/lazy/lazy-libraries.ts is in the bundle or not).
    const lazyLibraries = files.filter((file) => file.startsWith("lazy-"));
    expect([[], LAZY_LIBRARY_NAMES.map(lazyLibraryFile).sort()]).toContainEqual(lazyLibraries);
    const expected = ["index.mjs", "index.mjs.map", ...chunks, ...lazyLibraries];
    if (settings.loadsSkills) {
      expected.push(...filesUnder(join(PROJECT_ROOT, "shared/bundled")).map((file) => join("bundled", file)));
      // The bundled skills' parse outcomes (issue 27), beside the folder: never one of its documents.
      expected.push("bundled.prepared.json.gz");
    }
    if (settings.runsSandbox) expected.push(SANDBOX_WORKER_FILE, QUICKJS_WASM_FILE);
    expect(files).toEqual(expected.sort());
  });

  it("copies the bundled documents byte for byte", () => {
    // Prepare
    const source = join(PROJECT_ROOT, "shared/bundled");
    const copy = join(assetDirs["http-skills"], "bundled");

    // Act
    const differing = filesUnder(source).filter((file) => !readFileSync(join(source, file)).equals(readFileSync(join(copy, file))));

    // Assess
    expect(filesUnder(source).length).toBeGreaterThan(0);
    expect(differing).toEqual([]);
  });

  it.each(FUNCTION_NAMES)(
    "%s loads in a fresh Node process, exports a handler function and installs no async hook (tracing off)",
    (name) => {
      // Prepare
      const dir = assetDirs[name];
      const env = placeholderFunctionEnvironment(join(dir, "bundled"));

      // Act
      const result = importInFreshProcess(dir, env);

      // Assess
      expect(result.stderr).not.toMatch(/Error/);
      expect(result.report).toEqual({ handler: "function", asyncHooks: 0, xray: false });
      expect(result.status).toBe(0);
    },
  );

  it.each(FUNCTION_NAMES)("%s's lazy chunks and libraries (loaded on first use) load too", (name) => {
    // Prepare
    const dir = assetDirs[name];
    const chunks = readdirSync(dir).filter(
      (file) => (file.startsWith("chunk-") && file.endsWith(".mjs")) || (file.startsWith("lazy-") && file.endsWith(".cjs")),
    );
    const probe = `for (const file of ${JSON.stringify(chunks)}) await import(new URL(file, ${JSON.stringify(pathToFileURL(`${dir}/`).href)}).href); console.log("loaded", ${chunks.length}); process.exit(0);`;

    // Act
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], {
      cwd: dir,
      env: placeholderFunctionEnvironment(join(dir, "bundled")),
      encoding: "utf8",
      timeout: 60_000,
    });

    // Assess
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.stdout.trim()).toBe(`loaded ${chunks.length}`);
  });

  it("inside Lambda (AWS_EXECUTION_ENV set) the same bundle loads the X-Ray SDK after import, and the spy sees its async hook", () => {
    // Prepare
    const dir = assetDirs["lane-worker"];
    const env = {
      ...placeholderFunctionEnvironment(join(dir, "bundled")),
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
      AWS_XRAY_CONTEXT_MISSING: "IGNORE_ERROR",
    };

    // Act
    const result = importInFreshProcess(dir, env, 10_000);

    // Assess
    expect(result.report?.handler).toBe("function");
    expect(result.report?.asyncHooks).toBeGreaterThan(0);
    expect(result.report?.xray).toBe(true);
    expect(result.status).toBe(0);
  });

  it("runs guest code in the bundled sandbox worker with the copied wasm", async () => {
    // Prepare
    const dir = assetDirs["lane-worker"];
    const pool = new SandboxPool({ size: 1, workerUrl: pathToFileURL(join(dir, SANDBOX_WORKER_FILE)) });

    try {
      // Act
      const result = await pool.evaluate({ code: "[1, 2, 3].map((n) => n * 14).reduce((a, b) => a + b)", timeoutMs: 5_000 });

      // Assess
      expect(result).toBe(84);
      expect(existsSync(join(dir, QUICKJS_WASM_FILE))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("runs the guest bootstrap as minified into the bundled worker: globals, host calls, guest errors, the output cap", async () => {
    // Prepare
    const dir = assetDirs["lane-worker"];
    const pool = new SandboxPool({ size: 1, timeoutMs: 5_000, workerUrl: pathToFileURL(join(dir, SANDBOX_WORKER_FILE)) });
    const hostFunctions = {
      "vance.tool": ([name]: unknown[]) => ({ tool: name }),
      "vance.fail": () => {
        throw new Error("host detail");
      },
    };

    try {
      // Act
      const result = await pool.evaluate({
        code: "let caught; try { vance.fail() } catch (e) { caught = [e.name, e.code] } [input.n + 1, vance.tool('x'), caught, typeof guestBootstrap]",
        globals: { input: { n: 41 } },
        hostFunctions,
      });
      const guestError = await pool.evaluate({ code: "\n\nnull.x" }).catch((error: unknown) => error);
      const tooLarge = await pool.evaluate({ code: "'x'.repeat(100)", maxOutputBytes: 10 }).catch((error: unknown) => error);

      // Assess
      expect(result).toEqual([42, { tool: "x" }, ["HostError", "HOST_CALL_FAILED"], "undefined"]);
      expect(guestError).toBeInstanceOf(SandboxError);
      expect((guestError as SandboxError).line).toBe(3);
      expect(tooLarge).toBeInstanceOf(SandboxOutputTooLarge);
    } finally {
      await pool.close();
    }
  });
});

/**
 * Imports a bundle in a fresh Node process (no NODE_OPTIONS, as deployed), optionally deletes its
 * source maps, then calls its handler with an event whose first property read records a stack:
 * the frames below the getter are the bundle's own code.
 */
function stackSeenByHandler(dir: string, deleteMapsAfterImport: boolean): { stack: string | undefined; stderr: string } {
  const probe = [
    "import { readdirSync, unlinkSync } from 'node:fs';",
    `const m = await import(${JSON.stringify(pathToFileURL(join(dir, "index.mjs")).href)});`,
    deleteMapsAfterImport
      ? `for (const file of readdirSync(${JSON.stringify(dir)})) if (file.endsWith('.map')) unlinkSync(${JSON.stringify(dir)} + '/' + file);`
      : "",
    "let stack;",
    "const event = new Proxy({}, { get() { stack ??= new Error('probe').stack; return undefined; } });",
    "const context = { functionName: 'probe', awsRequestId: 'probe', getRemainingTimeInMillis: () => 1000 };",
    "await Promise.race([Promise.resolve().then(() => m.handler(event, context)).catch(() => {}), new Promise((resolve) => setTimeout(resolve, 3000))]);",
    "console.log(JSON.stringify({ stack }));",
    "process.exit(0);",
  ].join(" ");
  const env = { ...placeholderFunctionEnvironment(join(dir, "bundled")), NODE_OPTIONS: "", POWERTOOLS_LOG_LEVEL: "SILENT" };
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
  const line = result.stdout.trim().split("\n").pop() ?? "";
  return { stack: line.startsWith("{") ? (JSON.parse(line) as { stack?: string }).stack : undefined, stderr: result.stderr };
}

/** A frame printed from a source map: a project or dependency path, not a generated file. */
const MAPPED_FRAME = /\((functions|shared|node_modules)\/[^()]+\.(ts|js|mjs|cjs):\d+:\d+\)$/m;
const GENERATED_FRAME = /(index|chunk-[A-Z0-9]+)\.mjs:\d+:\d+/;

describe("stack traces of a bundle (no --enable-source-maps: each map is read when a stack first names its file)", () => {
  it.each(FUNCTION_NAMES)("%s prints its frames at their TypeScript or dependency sources", (name) => {
    // Act
    const { stack, stderr } = stackSeenByHandler(assetDirs[name], false);

    // Assess
    expect(stderr).not.toMatch(/Error/);
    expect(stack).toMatch(MAPPED_FRAME);
    expect(stack).not.toMatch(GENERATED_FRAME);
  });

  it("reads no source map at import: maps deleted after it leave the frames as generated, and nothing breaks", () => {
    // Prepare
    const copy = mkdtempSync(join(tmpdir(), "skills-unmapped-"));
    cpSync(assetDirs["lane-worker"], copy, { recursive: true });

    // Act
    const { stack, stderr } = stackSeenByHandler(copy, true);
    rmSync(copy, { recursive: true, force: true });

    // Assess
    expect(stderr).not.toMatch(/Error/);
    expect(stack).toMatch(GENERATED_FRAME);
    expect(stack).not.toMatch(MAPPED_FRAME);
  });

  it("names the original function and the exact source line of a logged error", () => {
    // Prepare
    const dir = assetDirs["lane-worker"];
    const source = readFileSync(join(PROJECT_ROOT, "shared/lanes/lane-message.ts"), "utf8").split("\n");
    const line = source.findIndex((text) => text.includes('throw new LaneMessageMalformed("body is not JSON"')) + 1;
    const record = { messageId: "m1", body: "{not json", attributes: { ApproximateReceiveCount: "1", MessageGroupId: "g" } };
    const probe = [
      `const m = await import(${JSON.stringify(pathToFileURL(join(dir, "index.mjs")).href)});`,
      `await m.handler({ Records: [${JSON.stringify(record)}] }, { functionName: "lane-worker", awsRequestId: "r1", getRemainingTimeInMillis: () => 1000 });`,
      "process.exit(0);",
    ].join(" ");
    const env = { ...placeholderFunctionEnvironment(join(dir, "bundled")), NODE_OPTIONS: "", POWERTOOLS_LOG_LEVEL: "ERROR" };

    // Act
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    // Powertools writes ERROR entries to stderr.
    const logged = result.stderr
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as { message: string; error?: { stack?: string } })
      .find((entry) => entry.message === "Poison lane message");

    // Assess
    expect(line).toBeGreaterThan(0);
    expect(logged?.error?.stack?.split("\n")[1]).toBe(`    at decodeLaneMessage (shared/lanes/lane-message.ts:${line}:11)`);
  });
});
