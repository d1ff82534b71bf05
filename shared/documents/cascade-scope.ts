// The cascade's levels and who is asking: what every lookup over the cascade (skills, recipes,
// any document) is resolved against. Lived in shared/skills/ as skill-scope.ts until issue 29: the
// cascade in this folder needs it, so it sits here, below everything that resolves through it.
/** Cascade source of a resolved skill (spec §3, §12), innermost first. */
export type SkillScope = "USER" | "PROJECT" | "VANCE" | "RESOURCE";

export const SKILL_SCOPES_INNER_FIRST: readonly SkillScope[] = ["USER", "PROJECT", "VANCE", "RESOURCE"];

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
}

/** The document "project" that holds the tenant-wide layer. */
export const TENANT_PROJECT = "_tenant";

export const userProject = (login: string): string => `_user_${login}`;
