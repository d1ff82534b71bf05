import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Stack traces of a Lambda bundle, mapped to the TypeScript sources when they are formatted.
 *
 * `NODE_OPTIONS=--enable-source-maps` reads and decodes every loaded module's source map at load:
 * ~80 ms of a lane worker's cold start for a 1.2 MB map, paid by every instance, although most
 * never format a stack (docs/decisions.md, issue 27: source maps on demand). Here a map is read
 * the first time a stack names its file, and kept; a missing or broken map leaves that frame as V8
 * wrote it. Every handler imports this module first, so it runs before any other module of its
 * bundle; under tsx or vitest (a `.ts` module), which map stacks themselves, it does nothing.
 */

/** Set by the bundle build: the project root as seen from the asset directory, so paths print as `shared/…/file.ts`. */
declare const SKILLS_SOURCE_ROOT: string | undefined;

interface Frame {
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
  getFunctionName(): string | null;
  getMethodName(): string | null;
  getTypeName(): string | null;
  isAsync?(): boolean;
  isConstructor(): boolean;
  isToplevel(): boolean;
  toString(): string;
}

const sourceRoot = typeof SKILLS_SOURCE_ROOT === "string" ? SKILLS_SOURCE_ROOT : "";
/** Per generated file: its map, or null once it could not be read. */
const maps = new Map<string, SourceMap | null>();

function mapOf(fileName: string): SourceMap | null {
  let map = maps.get(fileName);
  if (map !== undefined) return map;
  map = null;
  try {
    const path = fileName.startsWith("file:") ? fileURLToPath(fileName) : fileName;
    // Only the bundle's own files: a map beside Node's internals or a stranger's file is not ours to read.
    if (path.endsWith(".mjs"))
      map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8")) as ConstructorParameters<typeof SourceMap>[0]);
  } catch {
    map = null;
  }
  maps.set(fileName, map);
  return map;
}

/** `../../shared/lanes/lane-worker.ts` → `shared/lanes/lane-worker.ts`; a dependency keeps its `node_modules/…` path. */
function displayedSource(source: string): string {
  if (sourceRoot !== "" && source.startsWith(sourceRoot)) return source.slice(sourceRoot.length);
  const modules = source.lastIndexOf("node_modules/");
  return modules >= 0 ? source.slice(modules) : source;
}

interface MapEntry {
  originalSource?: string;
  originalLine?: number;
  originalColumn?: number;
  name?: string;
}

const entryAt = (map: SourceMap, line: number | null | undefined, column: number | null | undefined): MapEntry =>
  line && column ? (map.findEntry(line - 1, column - 1) as MapEntry) : {};

/**
 * As Node names a mapped frame: the enclosing function's original name, else the name its caller
 * called it by (from the caller's own map: with code splitting the two may sit in different
 * chunks), else V8's (minified) one.
 */
function nameOf(map: SourceMap, frame: Frame, caller: Frame | undefined): string {
  const enclosing = entryAt(map, frame.getEnclosingLineNumber?.(), frame.getEnclosingColumnNumber?.());
  const callerFile = caller?.getFileName();
  const callerMap = callerFile ? mapOf(callerFile) : null;
  const called = caller && callerMap ? entryAt(callerMap, caller.getLineNumber(), caller.getColumnNumber()) : {};
  const name = enclosing.name ?? called.name ?? frame.getFunctionName() ?? frame.getMethodName();
  const typeName = frame.isToplevel() ? null : frame.getTypeName();
  const qualified = typeName && typeName !== "global" && name && !frame.isConstructor() ? `${typeName}.${name}` : name;
  return `${frame.isAsync?.() ? "async " : ""}${frame.isConstructor() ? "new " : ""}${qualified ?? "<anonymous>"}`;
}

function formatFrame(frame: Frame, caller: Frame | undefined): string {
  try {
    const fileName = frame.getFileName();
    const map = fileName ? mapOf(fileName) : null;
    if (!map) return String(frame);
    const entry = entryAt(map, frame.getLineNumber(), frame.getColumnNumber());
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return String(frame);
    const where = `${displayedSource(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return `${nameOf(map, frame, caller)} (${where})`;
  } catch {
    return String(frame);
  }
}

function headerOf(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return "Error";
  }
}

/** V8's format (`Name: message` then `    at …` lines), each frame mapped when its file has a map. */
export function prepareMappedStackTrace(error: unknown, frames: readonly Frame[]): string {
  const header = headerOf(error);
  return frames.length === 0
    ? header
    : `${header}\n    at ${frames.map((frame, at) => formatFrame(frame, frames[at + 1])).join("\n    at ")}`;
}

// Only in a bundle (an .mjs with its maps beside it), and not where Node maps stacks already (--enable-source-maps).
if (import.meta.url.endsWith(".mjs") && !process.sourceMapsEnabled) {
  Error.prepareStackTrace = prepareMappedStackTrace as NonNullable<ErrorConstructor["prepareStackTrace"]>;
}
