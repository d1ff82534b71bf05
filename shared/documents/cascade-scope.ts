// The cascade's levels and who is asking: what every lookup over the cascade (skills, recipes,
// any document) is resolved against. Lived in shared/skills/ as skill-scope.ts until issue 29: the
// cascade in this folder needs it, so it sits here, below everything that resolves through it.
import { SKILL_SOURCES, TENANT_PROJECT, userProject } from "../../contract/levels.js";
import type { SkillSource } from "../../contract/common.js";

/** Cascade source of a resolved skill (spec §3, §12): the contract's level names (contract/levels.ts). */
export type SkillScope = SkillSource;

/** Innermost first. */
export const SKILL_SCOPES_INNER_FIRST: readonly SkillScope[] = SKILL_SOURCES;

/** Who is asking: the scope against which the cascade is resolved (spec §10 SkillScopeContext). */
export interface SkillScopeContext {
  tenantId: string;
  userId?: string | undefined;
  projectId?: string | undefined;
  /**
   * A process's pinned skills (its recipe's `skillVersions`): such a skill resolves to that
   * version of its SKILL.md, read from the level the skill resolves from (skill-loader.ts).
   */
  skillVersions?: Readonly<Record<string, string>> | undefined;
  /**
   * Versions of the scope's store levels that the caller read together with its process
   * (shared/catalogue/primed-versions.ts): the warm catalogue validates its levels against them
   * instead of reading them, so a steady turn costs that one read. Opaque below the catalogue.
   * Carried by the scope, not by async context: AsyncLocalStorage would turn on promise hooks,
   * and every await of the process would pay for them.
   */
  catalogueVersions?: object | undefined;
}

/** The document "project" that holds the tenant-wide layer, and a user's own. */
export { TENANT_PROJECT, userProject };
