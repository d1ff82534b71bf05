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
  total: number;
}

export interface UsageSummary {
  days: UsageDay[];
  totals: UsageCounts;
  total: number;
}

const zero = (): UsageCounts => ({ explicit: 0, trigger: 0, model: 0, recipe: 0, spawn: 0, refused: 0 });
const sum = (counts: UsageCounts): number => USAGE_PATHS.reduce((total, path) => total + counts[path], 0);

/**
 * One skill's rows as the panel shows them: one line per UTC day, newest first, summed over the
 * sources the API keeps apart (the same name may be counted at USER and PROJECT on one day).
 */
export function summarizeUsage(rows: readonly SkillUsageRow[], name: string): UsageSummary {
  const byDay = new Map<string, UsageDay>();
  const totals = zero();
  for (const row of rows) {
    if (row.name !== name) continue;
    const entry = byDay.get(row.day) ?? { day: row.day, counts: zero(), sources: [], total: 0 };
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
  return { days, totals, total: sum(totals) };
}
