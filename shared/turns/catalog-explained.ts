import type { ListedSkill } from "../skills/resolved-skill.js";
import type { SkillCatalog } from "../skills/skill-catalog.js";
import type { ActivationEntry } from "./activation-ledger.js";

/**
 * `explain=all` (API.md "Explainable activation"): every skill of the listing the model could
 * not pick from this turn's catalog, and why — `catalog-off` (budget 0), `model-invocation-disabled`,
 * `disabled`, `not-allowed` (outside allowedSkillsOverride), `omitted-by-budget`. Active skills are
 * the ledger's own rows, and so are skills it already explains (`explained`): one row per skill.
 * A preview only: never on the lane turn's path.
 */
export function catalogLeftOut(
  listing: readonly ListedSkill[],
  catalog: SkillCatalog | undefined,
  activeNames: ReadonlySet<string>,
  allowedSkills: readonly string[] | null,
  explained: ReadonlySet<string> = new Set(),
): ActivationEntry[] {
  const listed = new Set(catalog?.entries.map((entry) => entry.name) ?? []);
  const allowed = allowedSkills === null ? undefined : new Set(allowedSkills);
  const left: ActivationEntry[] = [];
  for (const skill of listing) {
    if (listed.has(skill.name) || activeNames.has(skill.name) || explained.has(skill.name)) continue;
    const reason =
      catalog === undefined || catalog.budgetChars === 0
        ? "catalog-off"
        : !skill.enabled
          ? "disabled"
          : skill.disableModelInvocation
            ? "model-invocation-disabled"
            : allowed !== undefined && !allowed.has(skill.name)
              ? "not-allowed"
              : "omitted-by-budget";
    left.push({ name: skill.name, outcome: "not-matched", reason });
  }
  return left;
}
