/**
 * The cascade's levels (API.md "Documents", spec §3): where a skill resolves from, innermost first,
 * and the document "project" names of the levels that are not a project.
 */
export const SKILL_SOURCES = ["USER", "PROJECT", "VANCE", "RESOURCE"] as const;

/** The levels an author writes documents to (RESOURCE is the service's own, read-only). */
export type WritableLevel = Exclude<(typeof SKILL_SOURCES)[number], "RESOURCE">;

/** The document "project" of the tenant-wide level (VANCE). */
export const TENANT_PROJECT = "_tenant";
/** A user's own level (USER) is the document project `_user_<login>`. */
export const USER_PROJECT_PREFIX = "_user_";

export const userProject = (login: string): string => `${USER_PROJECT_PREFIX}${login}`;

/** Which level a document project is: `_tenant` VANCE, `_user_<login>` USER, anything else PROJECT. */
export const levelOfProject = (project: string): WritableLevel =>
  project === TENANT_PROJECT ? "VANCE" : project.startsWith(USER_PROJECT_PREFIX) ? "USER" : "PROJECT";
