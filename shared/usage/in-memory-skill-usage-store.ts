import {
  MAX_USAGE_ROWS,
  capUsageRows,
  emptyRow,
  compareUsageRows,
  firstUsageDay,
  refusalCodeOf,
  rowOwner,
  sortedCodes,
  utcDay,
  visibleTo,
} from "./skill-usage.js";
import type { SkillUsageStore, UsageAnswer, UsageEvent, UsageQuery, UsageRow } from "./skill-usage.js";

/** Usage counters in one process's memory (unit tests, the in-memory app). */
export class InMemorySkillUsageStore implements SkillUsageStore {
  private readonly rows = new Map<string, { tenant: string; projectId: string; owner: string | undefined; row: UsageRow }>();

  async count(event: UsageEvent): Promise<void> {
    const day = utcDay(event.at);
    const owner = rowOwner(event);
    const key = JSON.stringify([event.tenant, event.projectId, day, event.name, event.source, owner]);
    const entry = this.rows.get(key) ?? {
      tenant: event.tenant,
      projectId: event.projectId,
      owner,
      row: emptyRow(event.name, event.source, day),
    };
    entry.row[event.counter] += 1;
    if (event.counter === "refused") {
      const code = refusalCodeOf(event.code);
      entry.row.refusedCodes = sortedCodes({ ...entry.row.refusedCodes, [code]: (entry.row.refusedCodes[code] ?? 0) + 1 });
    }
    this.rows.set(key, entry);
  }

  async read(query: UsageQuery): Promise<UsageAnswer> {
    const from = firstUsageDay(query.now, query.days);
    const rows = [...this.rows.values()]
      .filter((e) => e.tenant === query.tenant && e.projectId === query.projectId && e.row.day >= from)
      .filter((e) => (query.name === undefined || e.row.name === query.name) && visibleTo(query.viewer, e.row.source, e.owner))
      .map((e) => ({ ...e.row, refusedCodes: { ...e.row.refusedCodes } }))
      .sort(compareUsageRows);
    return capUsageRows(rows, MAX_USAGE_ROWS);
  }
}
