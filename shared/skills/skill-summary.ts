import type { ListedSkill } from "./resolved-skill.js";
import type { SkillArgument, SkillRun, SkillTrigger } from "./skill-frontmatter.js";
import type { SkillScope } from "../documents/cascade-scope.js";

/**
 * API.md `SkillSummary`: exactly these fields, in this order, nothing internal (location, body…).
 * `version` is left out when the document has none (Agent Skills); `argumentHint` when there is none.
 */
export interface SkillSummary {
  name: string;
  title: string;
  description: string;
  version?: string;
  tags: string[];
  source: SkillScope;
  lifecycle: "sticky" | "shot";
  triggers: SkillTrigger[];
  arguments: boolean | SkillArgument[];
  run: SkillRun;
  argumentHint?: string;
  disableModelInvocation: boolean;
  userInvocable: boolean;
}

/** Copies, so a caller serializing or changing the summary never touches a cached skill. */
export const toSkillSummary = (skill: ListedSkill): SkillSummary => ({
  name: skill.name,
  title: skill.title,
  description: skill.description,
  ...(skill.version !== undefined ? { version: skill.version } : {}),
  tags: [...skill.tags],
  source: skill.source,
  lifecycle: skill.lifecycle,
  triggers: structuredClone(skill.triggers),
  arguments: Array.isArray(skill.arguments) ? structuredClone(skill.arguments) : skill.arguments,
  run: { ...skill.run },
  ...(skill.argumentHint !== undefined ? { argumentHint: skill.argumentHint } : {}),
  disableModelInvocation: skill.disableModelInvocation,
  userInvocable: skill.userInvocable,
});
