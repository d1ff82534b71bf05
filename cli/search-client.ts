import { SkillsClient } from "../client/index.js";
import type { SkillSearchResult } from "../client/index.js";
import { translated } from "./documents-client.js";
import type { RemoteTarget } from "./remote-target.js";

/** `skills search`: a project's skills ranked for a query, through the typed client; `target.level` is the project id. */
export async function fetchSearch(target: RemoteTarget, query: string, limit: number): Promise<SkillSearchResult> {
  const base = target.baseUrl.href.replace(/\/+$/, "");
  const client = new SkillsClient({ baseUrl: base, tenant: target.tenant, token: target.token });
  return translated(() => client.skills.search(query, { projectId: target.level, limit }), base);
}

/** One line per result, best first: rank, score, name, level, then the description cut to one screen line; then the total. */
export function formatSearch(answer: SkillSearchResult): string[] {
  const lines = answer.results.map((r, i) => {
    const description = r.description.length > 100 ? `${r.description.slice(0, 99)}…` : r.description;
    return `${String(i + 1).padStart(2)}. ${r.score.toFixed(3).padStart(7)}  ${r.name}  (${r.source})  ${description}`;
  });
  lines.push(answer.total === 0 ? "no skill matches" : `${answer.results.length} of ${answer.total} matching skill(s)`);
  return lines;
}
