import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidDocument } from "../shared/errors.js";
import { TRIGGER_EVALS_FILE, parseTriggerEvals, runTriggerEvals } from "../shared/skills/evals/trigger-evals.js";
import type { EvalReport } from "../shared/skills/evals/trigger-evals.js";
import { EvalTimeBudget, OFFLINE_EVALS_TIME_BUDGET_MS } from "../shared/skills/evals/eval-time-budget.js";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { buildCatalog, DEFAULT_CATALOG_BUDGET_CHARS } from "../shared/skills/skill-catalog.js";
import { parseSkillDocument } from "../shared/skills/skill-document-parser.js";
import { withRouting } from "../shared/skills/evals/routing-evals.js";
import { SKILL_DOCUMENT, scanSkillTree } from "./skill-tree.js";

/**
 * Whether the model would see the skill in its catalog of this root (default recipe budget, nothing
 * active): a `should` message the triggers miss can still reach a `listed` skill through the model.
 */
export type CatalogStanding = "listed" | "omitted" | "not a candidate";

export interface EvalRun {
  reports: (EvalReport & { catalog: CatalogStanding })[];
  /** Skills whose SKILL.md or evals file could not be read or parsed, with why. */
  failures: { name: string; message: string }[];
}

/**
 * `skills eval <root> [name]`: every skill below `root` that has `evals/triggers.yaml` (or only
 * `name`), run offline through the turn's own trigger rule against all skills of the root, so
 * the confusion list names the neighbours that fire on the same message. Offline there is no
 * process and so no recipe whitelist, and no time budget: the author waits for the whole suite.
 */
export async function runEvals(root: string, name?: string): Promise<EvalRun> {
  const tree = await scanSkillTree(root);
  const listing: ResolvedSkill[] = [];
  const withEvals: { skill: ResolvedSkill; text: string; path: string }[] = [];
  const failures: EvalRun["failures"] = [];
  for (const local of tree.skills) {
    const skillPath = join(local.directory, SKILL_DOCUMENT);
    const parsed = parseSkillDocument(local.name, await readFile(skillPath, "utf8"), skillPath);
    if (!parsed.definition) {
      if (name === undefined || name === local.name)
        failures.push({ name: local.name, message: "SKILL.md does not parse (skills validate says why)" });
      continue;
    }
    const location = { source: "PROJECT" as const, project: "local", directory: local.directory };
    const skill: ResolvedSkill = { ...parsed.definition, source: "PROJECT", location, referenceDocs: [], warnings: [] };
    listing.push(skill);
    if (name !== undefined && name !== local.name) continue;
    const evalsPath = join(local.directory, TRIGGER_EVALS_FILE);
    const text = await readFile(evalsPath, "utf8").catch(() => undefined);
    if (text !== undefined) withEvals.push({ skill, text, path: evalsPath });
    else if (name !== undefined) failures.push({ name, message: `no ${TRIGGER_EVALS_FILE}` });
  }
  const { catalog } = buildCatalog(listing, { budgetChars: DEFAULT_CATALOG_BUDGET_CHARS, activeNames: [], allowedSkills: null });
  const listed = new Set(catalog.entries.map((e) => e.name));
  const standing = (skillName: string): CatalogStanding =>
    listed.has(skillName)
      ? "listed"
      : listing.some((s) => s.name === skillName && s.enabled && !s.disableModelInvocation)
        ? "omitted"
        : "not a candidate";
  const reports: EvalRun["reports"] = [];
  for (const { skill, text, path } of withEvals) {
    try {
      const report = withRouting(
        await runTriggerEvals(skill, listing, parseTriggerEvals(text, path), new EvalTimeBudget(OFFLINE_EVALS_TIME_BUDGET_MS)),
        listing,
      );
      reports.push({ ...report, catalog: standing(skill.name) });
    } catch (error) {
      if (!(error instanceof InvalidDocument)) throw error;
      failures.push({
        name: skill.name,
        message: error.problems.map((p) => `${p.line !== undefined ? `line ${p.line}: ` : ""}${p.message}`).join("; "),
      });
    }
  }
  if (name !== undefined && tree.skills.every((s) => s.name !== name)) failures.push({ name, message: `no skill '${name}' below ${root}` });
  return { reports, failures };
}

const pct = (n: number): string => `${(n * 100).toFixed(1)}%`;

/** One summary line per skill, then its wrong cases and the confusion list. */
export function formatEvalReport(report: EvalReport & { catalog?: CatalogStanding }): string[] {
  const catalog = report.catalog === undefined ? "" : `; catalog: ${report.catalog}`;
  const should = report.cases.filter((c) => c.expected && c.listed !== undefined);
  const routing =
    should.length === 0
      ? ""
      : `; listed ${should.filter((c) => c.listed === true).length}/${should.length}, in search top 5 ${should.filter((c) => c.searchRank != null && c.searchRank <= 5).length}/${should.length}`;
  const lines = [
    `${report.name}: precision ${pct(report.precision)}, recall ${pct(report.recall)} (${report.cases.length} case(s))${catalog}${routing}`,
  ];
  for (const c of report.cases) {
    const blocked = c.blocked === undefined ? "" : ` (matches, but a turn would not activate it: ${c.blocked})`;
    if (c.expected !== c.fired)
      lines.push(`  ${c.expected ? "missed" : "false positive"}: ${JSON.stringify(c.message.slice(0, 120))}${blocked}`);
    if (c.expected && c.listed === false)
      lines.push(`  not listed: ${JSON.stringify(c.message.slice(0, 120))} (search rank ${c.searchRank ?? "past 20"})`);
    if (c.alsoFired.length > 0) lines.push(`  confusion: ${JSON.stringify(c.message.slice(0, 120))} also fires ${c.alsoFired.join(", ")}`);
  }
  return lines;
}

export interface EvalThresholds {
  minRecall: number;
  minPrecision: number;
}

/** 0 when every skill reaches both thresholds and nothing failed to parse; 1 otherwise. */
export const evalExitCode = (run: EvalRun, t: EvalThresholds): number =>
  run.failures.length > 0 || run.reports.some((r) => r.recall < t.minRecall || r.precision < t.minPrecision) ? 1 : 0;
