import type { ListedSkill } from "../resolved-skill.js";
import { buildCatalog, DEFAULT_CATALOG_BUDGET_CHARS, isCatalogCandidate } from "../skill-catalog.js";
import { searchRankOf } from "../relevance/skill-search.js";
import type { EvalReport } from "./trigger-evals.js";

/**
 * "Does the skill reach the model" for each `should` case (API.md "Catalog at scale", evals):
 * `listed` — the catalog a turn would build for that message in this listing (default budget,
 * nothing active, no recipe whitelist or pins: the skill's level context without a process) lists
 * the skill; `searchRank` — its 1-based rank in skill_search for the message, null past 20. This
 * closes the author's loop for skills without triggers, which is nearly all real ones.
 * `should-not` cases are left as they are: a catalog line activates nothing.
 */
export function withRouting(report: EvalReport, listing: readonly ListedSkill[], budgetChars = DEFAULT_CATALOG_BUDGET_CHARS): EvalReport {
  const none = new Set<string>();
  return {
    ...report,
    cases: report.cases.map((c) => {
      if (!c.expected) return c;
      const { catalog } = buildCatalog(listing, { budgetChars, activeNames: [], allowedSkills: null, query: c.message });
      const listed = catalog.entries.some((e) => e.name === report.name);
      const searchRank = searchRankOf(listing, c.message, report.name, (skill) => isCatalogCandidate(skill, none, undefined));
      return { ...c, listed, searchRank };
    }),
  };
}
