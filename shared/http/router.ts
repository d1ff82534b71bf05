import { InvalidRequest } from "../errors.js";
import { RoutePatternError } from "./http-errors.js";
import { assertSafeRawPath } from "./raw-path.js";

/**
 * The route table shared by the Lambda handlers and the local stack. Patterns follow API
 * Gateway: `/brain/{tenant}/skills/effective/{name}`, with a greedy `{path+}` as last segment.
 * The raw path passes assertSafeRawPath first, so every route gets the dot-segment rule; then
 * each segment is percent-decoded exactly once.
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD" | "OPTIONS";

export interface RouteDefinition<T> {
  readonly method: HttpMethod | "ANY";
  readonly pattern: string;
  readonly target: T;
}

type RouteMatch<T> =
  | { readonly kind: "matched"; readonly route: RouteDefinition<T>; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allowed: readonly string[] }
  | { readonly kind: "not-found" };

type PatternSegment = { kind: "literal"; value: string } | { kind: "param"; name: string } | { kind: "greedy"; name: string };

const PARAM = /^\{([A-Za-z][A-Za-z0-9_]*)(\+?)\}$/;
const parsedPatterns = new Map<string, PatternSegment[]>();

function parsePattern(pattern: string): PatternSegment[] {
  const cached = parsedPatterns.get(pattern);
  if (cached) return cached;
  if (!pattern.startsWith("/")) throw new RoutePatternError(`Route pattern '${pattern}' must start with '/'`);
  const parts = pattern === "/" ? [] : pattern.slice(1).split("/");
  const names = new Set<string>();
  const segments = parts.map((part, index): PatternSegment => {
    const param = PARAM.exec(part);
    if (!param) {
      if (part === "" || /[{}]/.test(part)) throw new RoutePatternError(`Route pattern '${pattern}' has a bad segment '${part}'`);
      return { kind: "literal", value: part };
    }
    const name = param[1] ?? "";
    if (names.has(name)) throw new RoutePatternError(`Route pattern '${pattern}' repeats '{${name}}'`);
    names.add(name);
    if (param[2] === "+") {
      if (index !== parts.length - 1) throw new RoutePatternError(`Greedy '{${name}+}' must be the last segment of '${pattern}'`);
      return { kind: "greedy", name };
    }
    return { kind: "param", name };
  });
  parsedPatterns.set(pattern, segments);
  return segments;
}

function decodeSegment(segment: string): string {
  const decoded = decodeURIComponent(segment);
  // An encoded `/` inside one segment would silently add a level once joined or used as a key part.
  if (decoded.includes("/")) throw new InvalidRequest("Path segments must not contain an encoded '/'");
  return decoded;
}

/** Lower is more specific: literal beats `{param}` beats `{greedy+}`, position by position. */
const RANK = { literal: 0, param: 1, greedy: 2 } as const;

function compareSpecificity(a: PatternSegment[], b: PatternSegment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const diff = RANK[(a[i] as PatternSegment).kind] - RANK[(b[i] as PatternSegment).kind];
    if (diff !== 0) return diff;
  }
  return b.length - a.length;
}

function matchSegments(pattern: PatternSegment[], segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < pattern.length; i += 1) {
    const part = pattern[i] as PatternSegment;
    if (part.kind === "greedy") {
      const rest = segments.slice(i);
      if (rest.length === 0 || rest[0] === "") return undefined;
      params[part.name] = rest.join("/");
      return params;
    }
    const segment = segments[i];
    if (segment === undefined) return undefined;
    if (part.kind === "literal") {
      if (segment !== part.value) return undefined;
    } else {
      if (segment === "") return undefined;
      params[part.name] = segment;
    }
  }
  return pattern.length === segments.length ? params : undefined;
}

/**
 * Finds the most specific route for `rawPath` (percent-encoded, no query string). Throws
 * InvalidRequest for an unsafe path before looking at any route.
 */
export function matchRoute<T>(method: string, rawPath: string, routes: readonly RouteDefinition<T>[]): RouteMatch<T> {
  assertSafeRawPath(rawPath);
  const segments = rawPath === "/" ? [] : rawPath.slice(1).split("/").map(decodeSegment);
  const wanted = method.toUpperCase();
  let best: { route: RouteDefinition<T>; pattern: PatternSegment[]; params: Record<string, string> } | undefined;
  const allowed = new Set<string>();
  for (const route of routes) {
    const pattern = parsePattern(route.pattern);
    const params = matchSegments(pattern, segments);
    if (params === undefined) continue;
    if (route.method !== "ANY" && route.method !== wanted) {
      allowed.add(route.method);
      continue;
    }
    if (best === undefined || compareSpecificity(pattern, best.pattern) < 0) best = { route, pattern, params };
  }
  if (best) return { kind: "matched", route: best.route, params: { ...best.params } };
  if (allowed.size > 0) return { kind: "method-not-allowed", allowed: [...allowed].sort() };
  return { kind: "not-found" };
}
