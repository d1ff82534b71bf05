import { SkillsClient } from "../client/index.js";
import type { SkillUsageRow } from "../client/index.js";
import { translated } from "./documents-client.js";
import type { RemoteTarget } from "./remote-target.js";

/** Reads a project's usage counters through the typed client; `target.level` is the project id. */
export async function fetchUsage(
  target: RemoteTarget,
  days: number,
  name?: string,
): Promise<{ usage: SkillUsageRow[]; truncated: boolean }> {
  const base = target.baseUrl.href.replace(/\/+$/, "");
  const client = new SkillsClient({ baseUrl: base, tenant: target.tenant, token: target.token });
  return translated(() => client.skills.usageReport({ projectId: target.level, days, ...(name === undefined ? {} : { name }) }), base);
}

const COLUMNS = ["explicit", "trigger", "model", "recipe", "spawn", "refused"] as const;

/** `SKILL_NOT_ALLOWED:2,SKILL_NOT_FOUND:1`, or `-` for a row with no refusal. */
const refusalCodes = (row: SkillUsageRow): string => {
  const entries = Object.entries(row.refusedCodes ?? {});
  return entries.length === 0 ? "-" : entries.map(([code, count]) => `${code}:${count}`).join(",");
};

/** A fixed-width table, newest day first, as the service orders it; the last column says why activations were refused. */
export function formatUsage(rows: readonly SkillUsageRow[]): string[] {
  const header = ["day", "name", "source", ...COLUMNS, "refused-by"];
  const body = rows.map((r) => [r.day, r.name, r.source ?? "-", ...COLUMNS.map((c) => String(r[c])), refusalCodes(r)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  return [header, ...body].map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}
