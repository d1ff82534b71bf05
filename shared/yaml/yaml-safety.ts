import type { Document, LineCounter, Node } from "yaml";
import { yamlLibrary } from "../lazy/lazy-libraries.js";
import type { DocumentProblem } from "../errors.js";
import { yamlErrorHint } from "./yaml-error-hints.js";

/**
 * Parsing of untrusted YAML (SKILL.md frontmatter, `_vance/recipes/<name>.yaml`), hardened per
 * ../shared/SECURITY.md "YAML frontmatter": size and nesting are checked before the composer runs
 * (deep flow nesting crashes V8 with an uncatchable OOM), only the YAML 1.2 core schema applies,
 * and aliases, merge keys, custom tags, directives and `__proto__` keys are refused outright.
 */

interface SafeYamlOptions {
  maxBytes: number;
  /** Deepest allowed nesting of collections (a top-level mapping is depth 1). */
  maxDepth: number;
  /** File line on which `text` starts, so problems point into the whole file (default 1). */
  firstLine?: number;
}

export type YamlPath = readonly (string | number)[];

interface SafeYamlResult {
  /** Present iff `problems` is empty. */
  value?: unknown;
  problems: DocumentProblem[];
  /** 1-based file line of the deepest node that exists along `path` (for schema messages). */
  lineOf(path: YamlPath): number | undefined;
}

// Explicit tags that only restate what the core schema resolves anyway.
const CORE_TAGS = new Set(["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`));

const MAX_PROBLEMS = 10;

const COLLECTION_TOKENS = new Set(["block-map", "block-seq", "flow-collection"]);

/** 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** A bounded, printable rendering of untrusted text for messages. */
export function shown(value: string, max = 60): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  // eslint-disable-next-line no-control-regex
  return cut.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

type PreScan = { ok: true } | { ok: false; message: string; offset: number };

/**
 * Runs the package's lexer and CST parser (both iterative, with an explicit stack) and stops as
 * soon as the open collections exceed `maxDepth`, so the recursive composer never sees deep input.
 */
function preScan(text: string, maxDepth: number): PreScan {
  const { CST, Lexer, Parser } = yamlLibrary();
  const parser = new Parser();
  let offset = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (CST.tokenType(lexeme) === "directive-line") {
      return { ok: false, message: "YAML directives (%YAML, %TAG) are not allowed", offset };
    }
    for (const _token of parser.next(lexeme)) {
      // Completed documents are not needed; draining the generator advances the parser.
    }
    // The stack holds at most one document and one pending scalar besides collections, so it
    // only needs counting once it is long enough to matter (and then it is short).
    if (parser.stack.length > maxDepth) {
      const depth = parser.stack.filter((token) => COLLECTION_TOKENS.has(token.type)).length;
      if (depth > maxDepth) return { ok: false, message: `nesting is deeper than ${maxDepth} levels`, offset };
    }
    // Control tokens (document and scalar markers) are not source text: they move no offset.
    if (lexeme !== CST.DOCUMENT && lexeme !== CST.FLOW_END && lexeme !== CST.SCALAR) offset += lexeme.length;
  }
  return { ok: true };
}

function locate(doc: Document.Parsed, lineCounter: LineCounter, firstLine: number, path: YamlPath): number | undefined {
  const { isMap, isNode, isScalar, isSeq } = yamlLibrary();
  const lineOfNode = (node: unknown): number | undefined => {
    const start = isNode(node) ? node.range?.[0] : undefined;
    return start === undefined ? undefined : lineCounter.linePos(start).line + firstLine - 1;
  };
  let node: unknown = doc.contents;
  let line = lineOfNode(node);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      line = lineOfNode(pair.key) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
      if (node === undefined) break;
      line = lineOfNode(node) ?? line;
    } else {
      break;
    }
  }
  return line;
}

/** Parses one YAML document under the rules above; never throws for bad input. */
export function parseSafeYaml(text: string, path: string, options: SafeYamlOptions): SafeYamlResult {
  const firstLine = options.firstLine ?? 1;
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const problem = (message: string, line?: number): DocumentProblem => ({
    path,
    ...(line !== undefined ? { line } : {}),
    message,
    severity: "error",
  });
  const failed = (problems: DocumentProblem[]): SafeYamlResult => ({ problems, lineOf: () => undefined });

  // Length in UTF-16 units never exceeds the UTF-8 byte count, so this short-cuts huge input.
  if (source.length > options.maxBytes || Buffer.byteLength(source, "utf8") > options.maxBytes) {
    return failed([problem(`YAML is larger than ${options.maxBytes} bytes`, firstLine)]);
  }
  const nul = source.indexOf("\0");
  if (nul !== -1) return failed([problem("YAML contains a NUL character (binary content)", lineAt(source, nul) + firstLine - 1)]);

  const scan = preScan(source, options.maxDepth);
  if (!scan.ok) return failed([problem(scan.message, lineAt(source, scan.offset) + firstLine - 1)]);

  const { LineCounter: Lines, isAlias, isScalar, parseDocument, visit } = yamlLibrary();
  const lineCounter = new Lines();
  const doc = parseDocument(source, {
    version: "1.2",
    schema: "core",
    merge: false,
    resolveKnownTags: false,
    uniqueKeys: true,
    stringKeys: true,
    strict: true,
    prettyErrors: false,
    lineCounter,
  });
  const lineOf = (p: YamlPath) => locate(doc, lineCounter, firstLine, p);
  const offsetLine = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line + firstLine - 1);

  const problems: DocumentProblem[] = [];
  // Warnings are content the schema did not understand; unresolved tags are reported below.
  for (const issue of [...doc.errors, ...doc.warnings.filter((w) => w.code !== "TAG_RESOLVE_FAILED")]) {
    // Where the cause lies and how to fix it, when the package only says where it noticed.
    const hint = yamlErrorHint(source, issue);
    const at = hint.causeOffset !== undefined && hint.causeOffset < issue.pos[0] ? hint.causeOffset : issue.pos[0];
    problems.push(problem(`invalid YAML: ${issue.message.split("\n")[0]}${hint.fix ? ` (${hint.fix})` : ""}`, offsetLine(at)));
  }

  const nodeLine = (node: Node) => offsetLine(node.range?.[0]);
  visit(doc, {
    Alias(_key, node) {
      problems.push(problem(`YAML aliases (*${shown(node.source)}) are not allowed`, nodeLine(node)));
    },
    Node(_key, node) {
      if (isAlias(node)) return;
      if (node.anchor) problems.push(problem(`YAML anchors (&${shown(node.anchor)}) are not allowed`, nodeLine(node)));
      if (node.tag && !CORE_TAGS.has(node.tag)) problems.push(problem(`YAML tag '${shown(node.tag)}' is not allowed`, nodeLine(node)));
    },
    Pair(_key, pair) {
      if (!isScalar(pair.key)) return;
      const key = pair.key;
      if (key.value === "__proto__") problems.push(problem("the key '__proto__' is not allowed", nodeLine(key)));
      if (key.value === "<<" && key.type === "PLAIN") {
        problems.push(problem("YAML merge keys (<<) are not supported", nodeLine(key)));
      }
    },
  });
  if (problems.length > 0) return { problems: limited(dedupe(problems)), lineOf };

  // Aliases were refused above; maxAliasCount 0 keeps expansion impossible even so.
  return { value: doc.toJS({ maxAliasCount: 0 }), problems, lineOf };
}

/** An alias bomb has one problem per alias; the first few make the point. */
function limited(problems: DocumentProblem[]): DocumentProblem[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  const rest = problems.length - MAX_PROBLEMS;
  const last = problems[MAX_PROBLEMS - 1]!;
  return [...problems.slice(0, MAX_PROBLEMS), { ...last, message: `…and ${rest} more YAML problems` }];
}

function dedupe(problems: DocumentProblem[]): DocumentProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.line ?? ""}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A mapping as produced by parseSafeYaml (never a class instance, never a polluted prototype). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
