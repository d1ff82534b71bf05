import type { ValidationLine } from "./validate.js";

/**
 * The summary `skills validate` ends with: how often each rule fired, so 1 728 lines of one kind
 * read as one line (issue 30, "Findings that help instead of bury"). A rule is the message with
 * what varies per skill taken out: quoted values, paths, numbers, and everything after the first
 * `;` (the explanation, which names the skill's own values).
 */
export interface RuleCount {
  rule: string;
  severity: ValidationLine["severity"];
  count: number;
}

const RANK: Record<ValidationLine["severity"], number> = { error: 0, warning: 1, info: 2 };

export function problemRule(message: string): string {
  const head = message.split(/; /)[0] ?? message;
  return head
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/[^\s'"()]*\/[^\s'"()]*/g, "…")
    .replace(/\b\d+(\.\d+)*\b/g, "N")
    .trim();
}

/** Errors first, then warnings, then infos; within one severity the most frequent first. */
export function ruleSummary(lines: readonly ValidationLine[]): RuleCount[] {
  const counts = new Map<string, RuleCount>();
  for (const line of lines) {
    const rule = problemRule(line.message);
    const key = `${line.severity}\u0000${rule}`;
    const found = counts.get(key);
    if (found) found.count += 1;
    else counts.set(key, { rule, severity: line.severity, count: 1 });
  }
  return [...counts.values()].sort(
    (a, b) => RANK[a.severity] - RANK[b.severity] || b.count - a.count || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}

export const formatRuleCount = (r: RuleCount, width: number): string =>
  `  ${String(r.count).padStart(width)}  ${r.severity.padEnd(7)}  ${r.rule}`;
