import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { buildSync, type Metafile } from "esbuild";
import { encodeBundledLevel } from "../shared/catalogue/bundled-level-outcomes.js";
import { bundledPreparedFile, readBundledDocuments } from "../shared/documents/bundled-document-layer.js";
import { LAZY_LIBRARY_NAMES, lazyLibraryFile } from "../shared/lazy/lazy-libraries.js";
import { catalogueDocumentPreparer } from "../shared/recipes/catalogue-document-preparer.js";
import type { FunctionName } from "./api-routes.js";
import { ESM_REQUIRE_SHIM, externalFor, AWS_SDK_SOURCE, lambdaBundleOptions, NODE_TARGET, PROJECT_ROOT } from "./lambda-bundle.js";

/** The RESOURCE skills and recipes: copied beside each bundle that loads skills. */
export const BUNDLED_SOURCE = "shared/bundled";
export const BUNDLED_TARGET = "bundled";

/** The sandbox worker thread (shared/sandbox): its own esbuild entry, found beside the bundle at run time. */
const SANDBOX_WORKER_SOURCE = "shared/sandbox/sandbox-worker.mjs";
export const SANDBOX_WORKER_FILE = "sandbox-worker.mjs";
/** The emscripten loader resolves its wasm next to the (bundled) module that imports it. */
export const QUICKJS_WASM_FILE = "emscripten-module.wasm";

export interface LambdaAssetContents {
  /** Copies shared/bundled beside the code, with its parse outcomes (writeBundledPrepared). */
  loadsSkills?: boolean | undefined;
  /** Adds the QuickJS sandbox worker and its wasm. */
  runsSandbox?: boolean | undefined;
}

/** The wasm the sandbox worker loads (RELEASE_SYNC variant), found through quickjs-emscripten's own resolution. */
const quickjsWasmPath = (): string => {
  const fromProject = createRequire(join(PROJECT_ROOT, "package.json"));
  const fromQuickjs = createRequire(fromProject.resolve("quickjs-emscripten"));
  return fromQuickjs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
};

/**
 * Writes one function's Lambda asset into `outDir`: index.mjs (the handler) with the chunks it
 * imports, statically or through `import()`, their source maps, and the files the function reads
 * beside its code. Synchronous, as CDK's local bundling is; the bench and the tests call it too.
 */
export function writeLambdaAsset(
  name: FunctionName,
  outDir: string,
  contents: LambdaAssetContents,
  external: readonly string[] = externalFor(AWS_SDK_SOURCE),
): Metafile {
  mkdirSync(outDir, { recursive: true });
  const { metafile } = buildSync({ ...lambdaBundleOptions(name, outDir, external), write: true });
  // Only for code that can ask for them (shared/lazy/lazy-libraries.ts is in the bundle).
  if (Object.keys(metafile!.inputs).some((input) => input.endsWith("shared/lazy/lazy-libraries.ts"))) {
    for (const library of LAZY_LIBRARY_NAMES) {
      buildSync({
        entryPoints: [library],
        bundle: true,
        platform: "node",
        format: "cjs",
        target: NODE_TARGET,
        minify: process.env.SKILLS_PROFILE_BUILD !== "1",
        logLevel: "warning",
        absWorkingDir: PROJECT_ROOT,
        outfile: join(outDir, lazyLibraryFile(library)),
      });
    }
  }
  if (contents.loadsSkills) {
    cpSync(join(PROJECT_ROOT, BUNDLED_SOURCE), join(outDir, BUNDLED_TARGET), { recursive: true });
    writeBundledPrepared(join(outDir, BUNDLED_TARGET));
  }
  if (contents.runsSandbox) {
    buildSync({
      entryPoints: [join(PROJECT_ROOT, SANDBOX_WORKER_SOURCE)],
      bundle: true,
      platform: "node",
      format: "esm",
      target: NODE_TARGET,
      minify: true,
      mainFields: ["module", "main"],
      banner: { js: ESM_REQUIRE_SHIM },
      logLevel: "warning",
      absWorkingDir: PROJECT_ROOT,
      outfile: join(outDir, SANDBOX_WORKER_FILE),
    });
    cpSync(quickjsWasmPath(), join(outDir, QUICKJS_WASM_FILE));
  }
  return metafile!;
}

/**
 * The parse outcomes of the bundled skills as a cold instance would make them (issue 27), written
 * beside the copied folder (bundledPreparedFile): its RESOURCE level takes each one whose ETag is
 * the document's instead of parsing it (shared/catalogue/bundled-level-outcomes.ts).
 */
export function writeBundledPrepared(bundledDir: string): string {
  const file = bundledPreparedFile(bundledDir);
  writeFileSync(file, encodeBundledLevel(readBundledDocuments(bundledDir), catalogueDocumentPreparer));
  return file;
}
