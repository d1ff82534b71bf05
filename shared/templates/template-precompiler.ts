import type nunjucksCompilerModule from "nunjucks/src/compiler.js";
import { TemplateLimitExceeded, TemplateSyntaxError } from "./template-errors.js";

export interface TemplatePrecompileOptions {
  /** Characters of template source. */
  maxTemplateChars?: number;
  /** `{{ … }}` and `{% … %}` tags in total. */
  maxTags?: number;
  /** Depth of nested block tags (if, for, macro, …). */
  maxNesting?: number;
  /** Drop the first newline after a block tag / strip whitespace before it (Pebble-like prompt text). */
  trimBlocks?: boolean;
  lstripBlocks?: boolean;
}

const PRECOMPILE_DEFAULTS = {
  maxTemplateChars: 64 * 1024,
  maxTags: 1_000,
  maxNesting: 32,
  trimBlocks: true,
  lstripBlocks: true,
} satisfies Required<TemplatePrecompileOptions>;

const TAG = /\{\{|\{%-?\s*(\w+)/g;
const BLOCK_TAGS = new Set(["if", "ifAsync", "for", "asyncEach", "asyncAll", "macro", "call", "filter", "block", "raw", "verbatim"]);

/**
 * nunjucks' compiler is superlinear in nesting depth (800 nested ifs, 17 KB, took a second)
 * and costs ~0.1 ms per tag on the host's event loop, so bound both before compiling.
 * A rough lexical count: tags inside strings or raw blocks count too, which only errs on
 * the side of rejecting.
 */
const checkComplexity = (source: string, maxTags: number, maxNesting: number): void => {
  let tags = 0;
  let depth = 0;
  for (const match of source.matchAll(TAG)) {
    tags += 1;
    if (tags > maxTags) throw new TemplateLimitExceeded(`template has more than ${maxTags} tags`, "size");
    const name = match[1];
    if (name === undefined) continue;
    if (BLOCK_TAGS.has(name)) {
      depth += 1;
      if (depth > maxNesting) throw new TemplateLimitExceeded(`template nests blocks deeper than ${maxNesting} levels`, "size");
    } else if (name.startsWith("end") && BLOCK_TAGS.has(name.slice(3))) {
      depth = Math.max(0, depth - 1);
    }
  }
};

const lineOf = (error: unknown): number | undefined => {
  const line = (error as { lineno?: unknown }).lineno;
  return typeof line === "number" && line > 0 ? line : undefined;
};

/** nunjucks prefixes "(unknown path) [Line 2, Column 13]\n  "; the line is carried separately. */
const cleanMessage = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\([^)]*\)(?: \[Line \d+(?:, Column \d+)?\])?\s*/, "").trim();
};

type NunjucksCompiler = typeof nunjucksCompilerModule;
let compilerModule: Promise<NunjucksCompiler> | undefined;
/**
 * nunjucks' compiler (lexer, parser, codegen: ~60 KB minified) is loaded on the first compile, not
 * at a Lambda's init: a warm turn renders from the render cache and most cold starts never compile
 * (docs/decisions.md, issue 15). test/infra/bundle-init-path.test.ts keeps it off the init path.
 */
const nunjucksCompiler = (): Promise<NunjucksCompiler> =>
  (compilerModule ??= import("nunjucks/src/compiler.js").then((module) => module.default));

/**
 * Compiles an untrusted nunjucks template to JavaScript source on the host. This is parsing
 * and code generation only: nunjucks' lexer, parser and compiler never evaluate template
 * text (no eval/Function; a regex literal becomes a RegExp object that is never executed),
 * and the returned source only ever runs inside the sandbox. Returns the body of a function
 * that yields `{ root, b_<block>… }`.
 */
export const precompileTemplate = async (source: string, options: TemplatePrecompileOptions = {}): Promise<string> => {
  const maxTemplateChars = options.maxTemplateChars ?? PRECOMPILE_DEFAULTS.maxTemplateChars;
  if (source.length > maxTemplateChars) {
    throw new TemplateLimitExceeded(`template is larger than ${maxTemplateChars} characters`, "size");
  }
  checkComplexity(source, options.maxTags ?? PRECOMPILE_DEFAULTS.maxTags, options.maxNesting ?? PRECOMPILE_DEFAULTS.maxNesting);
  const compiler = await nunjucksCompiler();
  try {
    return compiler.compile(source, [], [], "template", {
      trimBlocks: options.trimBlocks ?? PRECOMPILE_DEFAULTS.trimBlocks,
      lstripBlocks: options.lstripBlocks ?? PRECOMPILE_DEFAULTS.lstripBlocks,
      throwOnUndefined: false,
    });
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // The parser recursed past the host stack (e.g. thousands of nested parentheses).
      throw new TemplateLimitExceeded("template expressions nest too deeply", "size", { cause: error });
    }
    throw new TemplateSyntaxError(cleanMessage(error), lineOf(error), { cause: error });
  }
};
