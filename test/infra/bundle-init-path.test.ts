import type { Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import type { FunctionName } from "../../infra/api-routes.js";
import {
  buildLambdaBundle,
  COMPOSITION_PATH_FUNCTIONS,
  initPathInputs,
  LAMBDA_BUNDLE_BUDGET_KB,
  LAZY_IN_FUNCTION,
  LAZY_ON_COMPOSITION_PATH,
} from "../../infra/lambda-bundle.js";

/**
 * What a composition-path Lambda evaluates at init, read from esbuild's metafile of the bundle as
 * deployed: no timing, only the module graph. Lazy modules are bundled but reached through import().
 */
const bundles = new Map<FunctionName, { metafile: Metafile; bytes: number }>();

beforeAll(async () => {
  const names = new Set([...COMPOSITION_PATH_FUNCTIONS, ...(Object.keys(LAZY_IN_FUNCTION) as FunctionName[])]);
  for (const name of names) bundles.set(name, await buildLambdaBundle(name));
}, 120_000);

describe("composition-path bundles at init", () => {
  it.each(COMPOSITION_PATH_FUNCTIONS.flatMap((name) => LAZY_ON_COMPOSITION_PATH.map((lazy) => [name, lazy.name, lazy.path] as const)))(
    "%s does not evaluate the %s at init",
    (name, _lazy, path) => {
      // Prepare
      const { metafile } = bundles.get(name)!;

      // Act
      const atInit = [...initPathInputs(metafile, name)].filter((input) => path.test(input));

      // Assess
      expect(atInit).toEqual([]);
    },
  );

  const lazyInFunction = Object.entries(LAZY_IN_FUNCTION).flatMap(([name, modules]) =>
    modules.map((lazy) => [name as FunctionName, lazy.name, lazy.path] as const),
  );

  it.each(lazyInFunction)("%s does not evaluate the %s at init", (name, _lazy, path) => {
    // Prepare
    const { metafile } = bundles.get(name)!;

    // Act
    const atInit = [...initPathInputs(metafile, name)].filter((input) => path.test(input));

    // Assess
    expect(atInit).toEqual([]);
  });

  // One chunk for all of them (shared/wiring/lane-worker-adapters.ts): each import() target of its
  // own would split the modules loaded at init into more chunks, which costs init time of its own.
  it.each(Object.keys(LAZY_IN_FUNCTION) as FunctionName[])("%s bundles its first-use modules, all in one chunk", (name) => {
    // Prepare
    const { metafile } = bundles.get(name)!;
    const lazy = LAZY_IN_FUNCTION[name]!;

    // Act
    const chunksOf = lazy.map(({ path }) =>
      Object.entries(metafile.outputs)
        .filter(([, output]) => Object.keys(output.inputs).some((input) => path.test(input)))
        .map(([file]) => file),
    );

    // Assess
    expect(chunksOf.every((chunks) => chunks.length === 1)).toBe(true);
    expect(new Set(chunksOf.flat()).size).toBe(1);
  });

  it.each(COMPOSITION_PATH_FUNCTIONS)("%s bundles the nunjucks compiler for first use (it is lazy, not gone)", (name) => {
    // Prepare
    const { metafile } = bundles.get(name)!;

    // Act
    const bundled = Object.keys(metafile.inputs).filter((input) => /nunjucks\/src\/compiler\.js$/.test(input));

    // Assess
    expect(bundled).toHaveLength(1);
  });

  it.each(COMPOSITION_PATH_FUNCTIONS)("%s stays within its bundle budget", (name) => {
    // Prepare
    const budgetKb = LAMBDA_BUNDLE_BUDGET_KB[name];

    // Act
    const kb = bundles.get(name)!.bytes / 1024;

    // Assess
    expect(budgetKb).toBeDefined();
    expect(kb).toBeLessThanOrEqual(budgetKb!);
  });

  // Our schemas are zod/mini (the no-classic-zod rule of .dependency-cruiser.cjs); this catches a
  // dependency that brings classic zod back. http-mcp has it from the MCP SDK (its types.js).
  it.each(COMPOSITION_PATH_FUNCTIONS.filter((name) => name !== "http-mcp"))("%s evaluates no classic zod at init", (name) => {
    // Prepare
    const { metafile } = bundles.get(name)!;

    // Act
    const classic = [...initPathInputs(metafile, name)].filter((input) => /node_modules\/zod\/(v4\/classic|v3)\//.test(input));

    // Assess
    expect(classic).toEqual([]);
  });

  it("the static walk stops at import(): a module only imported dynamically is not on the init path", () => {
    // Prepare
    const metafile = {
      inputs: {
        "functions/lane-worker/handler.ts": {
          bytes: 1,
          imports: [
            { path: "a.ts", kind: "import-statement" },
            { path: "lazy.ts", kind: "dynamic-import" },
          ],
        },
        "a.ts": { bytes: 1, imports: [{ path: "b.js", kind: "require-call" }] },
        "b.js": { bytes: 1, imports: [] },
        "lazy.ts": { bytes: 1, imports: [{ path: "c.js", kind: "import-statement" }] },
        "c.js": { bytes: 1, imports: [] },
      },
      outputs: {},
    } as unknown as Metafile;

    // Act
    const atInit = initPathInputs(metafile, "lane-worker");

    // Assess
    expect([...atInit].sort()).toEqual(["a.ts", "b.js", "functions/lane-worker/handler.ts"]);
  });
});
