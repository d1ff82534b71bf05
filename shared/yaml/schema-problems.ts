import type { $ZodIssue } from "zod/v4/core";
import type { DocumentProblem } from "../errors.js";
import type { YamlPath } from "./yaml-safety.js";

/**
 * Turns zod issues into `<field path>: <message>` problems an author can act on, e.g.
 * `referenceDocs[1].loadMode: expected one of INLINE, ON_DEMAND`, at the line of that field.
 * zod's own messages (`Invalid option: expected one of "INLINE"|"ON_DEMAND"`) name neither.
 */

type Issue = $ZodIssue;
type LineOf = (path: YamlPath) => number | undefined;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `["referenceDocs", 1, "loadMode"]` → `referenceDocs[1].loadMode`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      out += PLAIN_KEY.test(key) ? `${out === "" ? "" : "."}${key}` : `[${JSON.stringify(key.slice(0, 60))}]`;
    }
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  null: "null",
};

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return `${value}`;
    case "object":
      return "a mapping";
    default:
      return typeof value;
  }
}

const toPath = (path: readonly PropertyKey[]): (string | number)[] =>
  path.map((segment) => (typeof segment === "number" ? segment : String(segment)));

interface Finding {
  path: (string | number)[];
  message: string;
}

function unionFindings(issue: Extract<Issue, { code: "invalid_union" }>, base: (string | number)[]): Finding[] {
  if (issue.discriminator !== undefined && "options" in issue && issue.options) {
    return [{ path: base, message: `expected one of ${issue.options.map(String).join(", ")}` }];
  }
  // A branch whose issues lie deeper than the union itself is the one the author meant
  // (e.g. a list of arguments with one bad entry): report its issues, not "no branch matched".
  const deep = issue.errors.filter((branch) => branch.some((i) => i.path.length > 0 || i.code !== "invalid_type"));
  if (deep.length === 1) return deep[0]!.flatMap((i) => findings(i, base));
  const alternatives = issue.errors
    .map((branch) => branch[0])
    .filter((i): i is Extract<Issue, { code: "invalid_type" }> => i?.code === "invalid_type")
    .map((i) => EXPECTED[i.expected] ?? i.expected);
  const got = issue.input === undefined ? "" : `, got ${describeValue(issue.input)}`;
  return [{ path: base, message: alternatives.length > 0 ? `expected ${alternatives.join(" or ")}${got}` : "has an invalid value" }];
}

function findings(issue: Issue, prefix: (string | number)[] = []): Finding[] {
  const path = [...prefix, ...toPath(issue.path)];
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return [{ path, message: "is required" }];
      return [{ path, message: `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(issue.input)}` }];
    case "invalid_value":
      return [
        {
          path,
          message:
            issue.values.length === 1 ? `expected ${String(issue.values[0])}` : `expected one of ${issue.values.map(String).join(", ")}`,
        },
      ];
    case "too_small": {
      const n = Number(issue.minimum);
      if (issue.origin === "string") return [{ path, message: n <= 1 ? "must not be empty" : `must be at least ${n} characters` }];
      if (issue.origin === "array") return [{ path, message: `must have at least ${n} ${n === 1 ? "item" : "items"}` }];
      return [{ path, message: `must be at least ${n}` }];
    }
    case "too_big": {
      const n = Number(issue.maximum);
      if (issue.origin === "string") return [{ path, message: `must be at most ${n} characters` }];
      if (issue.origin === "array") return [{ path, message: `must have at most ${n} items` }];
      return [{ path, message: `must be at most ${n}` }];
    }
    case "invalid_format":
      return [{ path, message: issue.message.startsWith("Invalid") ? "has an invalid format" : issue.message }];
    case "unrecognized_keys":
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field '${key.slice(0, 60)}'` }));
    case "invalid_union":
      return unionFindings(issue, path);
    case "invalid_key":
      return [{ path, message: `has an invalid key: ${issue.issues.map((i) => findings(i)[0]?.message ?? i.message).join("; ")}` }];
    default:
      return [{ path, message: issue.message }];
  }
}

/**
 * One error per issue. For an unknown key the message is attached to the enclosing object and
 * the line is the key's own.
 */
export function schemaProblems(issues: readonly Issue[], documentPath: string, lineOf: LineOf): DocumentProblem[] {
  return issues.flatMap((issue) =>
    findings(issue).map(({ path, message }) => {
      const unknownKey = message.startsWith("unknown field ");
      const shownPath = formatFieldPath(unknownKey ? path.slice(0, -1) : path);
      const line = lineOf(path);
      return {
        path: documentPath,
        ...(line !== undefined ? { line } : {}),
        message: shownPath === "" ? message : `${shownPath}: ${message}`,
        severity: "error" as const,
      };
    }),
  );
}
