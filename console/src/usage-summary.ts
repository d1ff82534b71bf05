import type { SkillUsageRow } from "skills-service/client";

/** The activation paths a usage row counts, in the order the panel shows them. */
export const USAGE_PATHS = ["explicit", "trigger", "model", "recipe", "spawn", "refused"] as const;
export type UsagePath = (typeof USAGE_PATHS)[number];
export type UsageCounts = Record<UsagePath, number>;

/** The day choices of the usage panel (the API takes 1 to 400). */
export const USAGE_DAY_CHOICES = [7, 30, 90] as const;

export interface UsageDay {
  day: string;
  counts: UsageCounts;
  /** The sources the skill was counted at that day (a refused activation has none). */
  sources: string[];
  /** The day's refusals by error code. */
  refusedCodes: Record<string, number>;
  total: number;
}

export interface UsageSummary {
  days: UsageDay[];
  totals: UsageCounts;
  /** Every refusal of the window by error code, most frequent first. */
  refusedCodes: [code: string, count: number][];
  total: number;
}

const addCodes = (into: Record<string, number>, codes: Record<string, number> | undefined): void => {
  for (const [code, count] of Object.entries(codes ?? {})) if (Number.isFinite(count)) into[code] = (into[code] ?? 0) + count;
};

/** `SKILL_NOT_ALLOWED 2, SKILL_NOT_FOUND 1`: what a refused count is made of. */
export const describeCodes = (codes: Record<string, number> | [string, number][]): string =>
  (Array.isArray(codes) ? codes : Object.entries(codes)).map(([code, count]) => `${code} ${count}`).join(", ");

const zero = (): UsageCounts => ({ explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 0 });
const sum = (counts: UsageCounts): number => USAGE_PATHS.reduce((total, path) => total + counts[path], 0);

/**
 * One skill's rows as the panel shows them: one line per UTC day, newest first, summed over the
 * sources the API keeps apart (the same name may be counted at USER and PROJECT on one day).
 */
export function summarizeUsage(rows: readonly SkillUsageRow[], name: string): UsageSummary {
  const byDay = new Map<string, UsageDay>();
  const totals = zero();
  const codeTotals: Record<string, number> = {};
  for (const row of rows) {
    if (row.name !== name) continue;
    const entry = byDay.get(row.day) ?? { day: row.day, counts: zero(), sources: [], refusedCodes: {}, total: 0 };
    addCodes(entry.refusedCodes, row.refusedCodes);
    addCodes(codeTotals, row.refusedCodes);
    for (const path of USAGE_PATHS) {
      const count = Number.isFinite(row[path]) ? row[path] : 0;
      entry.counts[path] += count;
      totals[path] += count;
    }
    if (row.source !== null && !entry.sources.includes(row.source)) entry.sources.push(row.source);
    byDay.set(row.day, entry);
  }
  const days = [...byDay.values()].map((entry) => ({ ...entry, total: sum(entry.counts) })).filter((entry) => entry.total > 0);
  days.sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
  const refusedCodes = Object.entries(codeTotals).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return { days, totals, refusedCodes, total: sum(totals) };
}
