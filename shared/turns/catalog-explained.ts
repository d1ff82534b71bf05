import type { ListedSkill } from "../skills/resolved-skill.js";
import type { BuiltCatalog } from "../skills/skill-catalog.js";
import type { ActivationEntry } from "./activation-ledger.js";

/**
 * `explain=all` (API.md "Explainable activation"): every skill of the listing the model could
 * not pick from this turn's catalog, and why — `catalog-off` (budget 0), `model-invocation-disabled`,
 * `disabled`, `not-allowed` (outside allowedSkillsOverride), `omitted-by-budget`. Active skills are
 * the ledger's own rows, and so are skills it already explains (`explained`): one row per skill.
 * An `omitted-by-budget` row carries its rank in the catalog's order and, when the catalog was
 * ranked by relevance, its score (API.md "Catalog at scale").
 * A preview only: never on the lane turn's path.
 */
export function catalogLeftOut(
  listing: readonly ListedSkill[],
  built: BuiltCatalog | undefined,
  activeNames: ReadonlySet<string>,
  allowedSkills: readonly string[] | null,
  explained: ReadonlySet<string> = new Set(),
): ActivationEntry[] {
  const catalog = built?.catalog;
  const listed = new Set(catalog?.entries.map((entry) => entry.name) ?? []);
  const omitted = new Map(
    (built?.omittedRanked?.() ?? []).map((o, i) => [o.name, { rank: (catalog?.entries.length ?? 0) + i + 1, score: o.score }] as const),
  );
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
    const place = reason === "omitted-by-budget" ? omitted.get(skill.name) : undefined;
    left.push({
      name: skill.name,
      outcome: "not-matched",
      reason,
      ...(place?.score !== undefined ? { score: place.score } : {}),
      ...(place !== undefined ? { rank: place.rank } : {}),
    });
  }
  return left;
}
