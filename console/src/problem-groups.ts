// The client package, not ./api.js: the unit tests import this file without the DOM.
import type { SkillProblem } from "skills-service/client";

export type Severity = "error" | "warning" | "info";

/** Most prominent first: an `info` is a deviation the author need not act on, shown last and quietest. */
export const SEVERITIES: readonly Severity[] = ["error", "warning", "info"];

export const severityOf = (problem: Pick<SkillProblem, "severity">): Severity =>
  problem.severity === "warning" || problem.severity === "info" ? problem.severity : "error";

/** The problems of one rule: the same message once the names, paths and values in it are set aside. */
export interface ProblemGroup {
  rule: string;
  severity: Severity;
  problems: SkillProblem[];
}

/**
 * The rule a problem message states. The service sends no rule id, but its messages are built as
 * `<field>: <rule>; <detail naming this skill>` or with the specifics quoted or in parentheses:
 * what precedes the first `;`, with quoted text, parenthesised paths and numbers replaced, is the
 * same sentence for every skill that breaks the rule ("title: is absent", "field '…' (Claude
 * Code) is not used by this service (ignored)").
 */
export function ruleOf(message: string): string {
  const head = message.split(";")[0] ?? message;
  return (
    head
      // A quote opens after a non-letter: the apostrophe of "level's" is not one.
      .replace(/(?<![\p{L}])('[^']*'|"[^"]*"|`[^`]*`)/gu, "'…'")
      .replace(/\([^()]*\/[^()]*\)/g, "(…)")
      .replace(/\d+/g, "N")
      .trim()
  );
}

/** Problems grouped by rule and severity; groups ordered by severity, then by size, then by rule. */
export function groupProblems(problems: readonly SkillProblem[]): ProblemGroup[] {
  const groups = new Map<string, ProblemGroup>();
  for (const problem of problems) {
    const severity = severityOf(problem);
    const rule = ruleOf(problem.message);
    const key = `${severity}\u0000${rule}`;
    const group = groups.get(key);
    if (group) group.problems.push(problem);
    else groups.set(key, { rule, severity, problems: [problem] });
  }
  return [...groups.values()].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      b.problems.length - a.problems.length ||
      a.rule.localeCompare(b.rule),
  );
}

/** How many of each severity, for the panel's one-line summary. */
export function severityCounts(problems: readonly SkillProblem[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const problem of problems) counts[severityOf(problem)] += 1;
  return counts;
}
