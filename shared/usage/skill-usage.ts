import { InvalidRequest } from "../errors.js";
import type { SkillScope } from "../documents/cascade-scope.js";
import type { SkillActivationPath } from "../steering/skill-activations.js";

/** What one counter counts: an activation by its path, or a refused activation. */
export type UsageCounterName = SkillActivationPath | "refused";

export const USAGE_COUNTERS: readonly UsageCounterName[] = ["explicit", "trigger", "model", "recipe", "spawn", "refused"];

/** One activation (or refusal) to count: one atomic ADD on its day's counter item. */
export interface UsageEvent {
  tenant: string;
  /** The process's project: usage is read per project (`?projectId=P`). */
  projectId: string;
  name: string;
  /** The level the skill resolved from; null for a refusal (no level served it). */
  source: SkillScope | null;
  /**
   * Whose row it is when the row is private (see `isPrivateSource`): the user whose `_user_` level
   * served a USER skill, or the user whose process refused an activation of unknown level.
   */
  owner?: string | undefined;
  counter: UsageCounterName;
  /** With `refused`: the error code the activation was refused with (counted per code as well). */
  code?: string | undefined;
  at: Date;
}

/** API.md "Author's loop": one row per skill, level and UTC day. */
export interface UsageRow {
  name: string;
  source: SkillScope | null;
  day: string;
  explicit: number;
  trigger: number;
  model: number;
  recipe: number;
  spawn: number;
  refused: number;
  /** `refused` split by the error code each refusal answered (`SKILL_NOT_ALLOWED`, …), keys sorted. */
  refusedCodes: Record<string, number>;
}

export interface UsageQuery {
  tenant: string;
  projectId: string;
  /** UTC days back from today, today included. */
  days: number;
  name?: string | undefined;
  /** Who reads: USER rows of other members are left out (API.md: a `_user_U` document reaches no one but U). */
  viewer: string;
  now: Date;
}

/** At most this many rows per answer (about 2 MB of JSON, well inside a Lambda response), newest days first. */
export const MAX_USAGE_ROWS = 10_000;

export interface UsageAnswer {
  usage: UsageRow[];
  /** More rows were counted than MAX_USAGE_ROWS: the oldest days are left out. */
  truncated: boolean;
}

/**
 * Rows that belong to one user. A USER skill's, because nobody else may learn even the names of
 * someone's private skills; a refusal whose level is unknown (null), because the name asked for
 * may be the asker's private skill (a USER skill the recipe does not allow is refused before any
 * level is known).
 */
export const isPrivateSource = (source: SkillScope | null): boolean => source === "USER" || source === null;

/** The owner a row is kept under: only private rows have one. */
export const rowOwner = (event: Pick<UsageEvent, "source" | "owner">): string | undefined =>
  isPrivateSource(event.source) ? event.owner : undefined;

export const visibleTo = (viewer: string, source: SkillScope | null, owner: string | undefined): boolean =>
  !isPrivateSource(source) || owner === viewer;

/** Where usage is counted and read. `count` is one write; a failure to count is the caller's to swallow. */
export interface SkillUsageStore {
  count(event: UsageEvent): Promise<void>;
  read(query: UsageQuery): Promise<UsageAnswer>;
}

/** Counters live as long as a year of history plus a margin for year-on-year comparisons. */
export const USAGE_TTL_DAYS = 400;
export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = USAGE_TTL_DAYS;

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The first UTC day a query of `days` days covers (today counts as one). */
export const firstUsageDay = (now: Date, days: number): string => utcDay(new Date(now.getTime() - (days - 1) * 86_400_000));

export const usageExpiry = (at: Date): number => Math.floor(at.getTime() / 1000) + USAGE_TTL_DAYS * 86_400;

/** `?days=N`: a whole number 1..400 (absent: 30). */
export function parseUsageDays(value: string | undefined): number {
  if (value === undefined) return DEFAULT_USAGE_DAYS;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_USAGE_DAYS) {
    throw new InvalidRequest(`Query parameter 'days' must be a whole number from 1 to ${MAX_USAGE_DAYS}, got '${value.slice(0, 40)}'`);
  }
  return Number(value);
}

export const emptyRow = (name: string, source: SkillScope | null, day: string): UsageRow => ({
  name,
  source,
  day,
  explicit: 0,
  trigger: 0,
  model: 0,
  recipe: 0,
  spawn: 0,
  refused: 0,
  refusedCodes: {},
});

/**
 * The code a refusal is counted under. Codes are the service's own (`SKILL_NOT_ALLOWED`); anything
 * else is folded into one bucket so a counter item can never grow an attribute per odd string.
 */
export const OTHER_REFUSAL_CODE = "OTHER";
export const refusalCodeOf = (code: string | undefined): string =>
  code !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : OTHER_REFUSAL_CODE;

/** Keys in code-point order, so the same counts always serialize to the same bytes. */
export const sortedCodes = (codes: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(codes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Newest day first, then by name (code points) and level. */
export const compareUsageRows = (a: UsageRow, b: UsageRow): number =>
  a.day !== b.day
    ? a.day < b.day
      ? 1
      : -1
    : a.name !== b.name
      ? a.name < b.name
        ? -1
        : 1
      : String(a.source) < String(b.source)
        ? -1
        : String(a.source) > String(b.source)
          ? 1
          : 0;

/**
 * At most `cap` rows from rows read newest day first. A cut falls between days: the day that
 * does not fit is left out whole, so every day shown is complete (a page boundary inside a day
 * would otherwise keep an arbitrary band of its names). Only a single day of more than `cap`
 * rows is cut within itself.
 */
export function capUsageRows(newestFirst: readonly UsageRow[], cap: number): UsageAnswer {
  if (newestFirst.length <= cap) return { usage: [...newestFirst].sort(compareUsageRows), truncated: false };
  const firstLeftOut = newestFirst[cap]!.day;
  const wholeDays = newestFirst.filter((row) => row.day > firstLeftOut);
  return { usage: (wholeDays.length > 0 ? wholeDays : newestFirst.slice(0, cap)).sort(compareUsageRows), truncated: true };
}
