import { createRequire } from "node:module";
import type * as Re2js from "re2js";
import type * as Yaml from "yaml";

/**
 * Libraries the composition path needs only when it parses a document (yaml) or compiles a
 * trigger pattern (re2js): ~260 KB a cold start would otherwise compile before the handler runs.
 * Each is loaded, synchronously, on first use. In the Lambda bundles each is its own CommonJS
 * file beside index.mjs (`lazy-<name>.cjs`, written by infra/write-lambda-asset.ts; the build
 * defines SKILLS_LAZY_LIBRARY_FILES); everywhere else (tests, the CLI, the local stack) the
 * package itself is required.
 */
declare const SKILLS_LAZY_LIBRARY_FILES: boolean | undefined;

export const LAZY_LIBRARY_NAMES = ["yaml", "re2js"] as const;
export type LazyLibraryName = (typeof LAZY_LIBRARY_NAMES)[number];

/** The file a lazy library is written to beside the bundle. */
export const lazyLibraryFile = (name: LazyLibraryName): string => `lazy-${name}.cjs`;

const requireHere = createRequire(import.meta.url);
const besideBundle = typeof SKILLS_LAZY_LIBRARY_FILES !== "undefined" && SKILLS_LAZY_LIBRARY_FILES;

function lazy<T>(name: LazyLibraryName): () => T {
  let library: T | undefined;
  return () => (library ??= requireHere(besideBundle ? `./${lazyLibraryFile(name)}` : name) as T);
}

export const yamlLibrary = lazy<typeof Yaml>("yaml");
export const re2jsLibrary = lazy<typeof Re2js>("re2js");
