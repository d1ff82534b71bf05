import type { RemoteTarget } from "./remote-target.js";
import { DocumentsApiError } from "./documents-client.js";

/** One row of `GET /brain/{tenant}/skills/usage` (API.md "Author's loop"). */
export interface UsageRow {
  name: string;
  source: string | null;
  day: string;
  explicit: number;
  trigger: number;
  model: number;
  recipe: number;
  spawn: number;
  refused: number;
}

/** Reads a project's usage counters; `target.level` is the project id. */
export async function fetchUsage(target: RemoteTarget, days: number, name?: string, doFetch: typeof globalThis.fetch = globalThis.fetch): Promise<UsageRow[]> {
  const url = new URL(`brain/${encodeURIComponent(target.tenant)}/skills/usage`, target.baseUrl.href.endsWith("/") ? target.baseUrl : `${target.baseUrl.href}/`);
  url.searchParams.set("projectId", target.level);
  url.searchParams.set("days", String(days));
  if (name !== undefined) url.searchParams.set("name", name);
  const response = await doFetch(url, { headers: { authorization: `Bearer ${target.token}` } });
  const text = await response.text();
  if (!response.ok) {
    const error = (JSON.parse(text || "{}") as { error?: { code?: string; message?: string } }).error ?? {};
    throw new DocumentsApiError(response.status, error.code ?? "HTTP_ERROR", error.message ?? response.statusText);
  }
  return (JSON.parse(text) as { usage: UsageRow[] }).usage;
}

const COLUMNS = ["explicit", "trigger", "model", "recipe", "spawn", "refused"] as const;

/** A fixed-width table, newest day first, as the service orders it. */
export function formatUsage(rows: readonly UsageRow[]): string[] {
  const header = ["day", "name", "source", ...COLUMNS];
  const body = rows.map((r) => [r.day, r.name, r.source ?? "-", ...COLUMNS.map((c) => String(r[c]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  return [header, ...body].map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}
