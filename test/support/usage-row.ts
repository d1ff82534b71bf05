import type { SkillUsageRow } from "../../client/index.js";
import type { SkillScope } from "../../shared/documents/cascade-scope.js";
import { emptyRow } from "../../shared/usage/skill-usage.js";

/** One usage row as the API answers it: every counter 0 but those given. */
export const usageRow = (
  day: string,
  counts: Partial<SkillUsageRow> = {},
  name = "deploy",
  source: string | null = "PROJECT",
): SkillUsageRow => ({
  ...emptyRow(name, source as SkillScope | null, day),
  ...counts,
});
