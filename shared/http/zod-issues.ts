import type { $ZodError } from "zod/v4/core";

const MAX_ISSUES = 10;
const MAX_MESSAGE = 200;

const pathOf = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`), "");

/** `skillName: Invalid input: expected string, received number; …`, bounded for a response body. */
export function describeZodIssues(error: $ZodError): string {
  const shown = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const where = pathOf(issue.path);
    const message = issue.message.length > MAX_MESSAGE ? `${issue.message.slice(0, MAX_MESSAGE)}…` : issue.message;
    return where === "" ? message : `${where}: ${message}`;
  });
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join("; ")}; and ${more} more` : shown.join("; ");
}
