import { validateLogin, validateProjectId, validateTenantId } from "../documents/document-path.js";
import type { LaneUser } from "../lanes/lane-message.js";
import { Unauthenticated } from "./auth-errors.js";

/**
 * Who is calling, as established by a verified token (or by the authorizer context the
 * authorizer built from one). Nothing in a body, query or path ever contributes to it.
 */
export interface Identity {
  readonly login: string;
  readonly tenant: string;
  readonly projects: readonly string[];
  readonly roles: readonly string[];
}

export const TENANT_ADMIN_ROLE = "tenant-admin";
export const PROJECT_ADMIN_ROLE_PREFIX = "project-admin:";

/** Bounds keep the authorizer context (and every cache keyed by identity) small. */
const MAX_PROJECTS = 256;
const MAX_ROLES = 256;
const MAX_ROLE_LENGTH = 128;

const projectAdminRole = (projectId: string): string => `${PROJECT_ADMIN_ROLE_PREFIX}${projectId}`;

interface IdentityCandidate {
  login: unknown;
  tenant: unknown;
  projects: unknown;
  roles: unknown;
}

function checked<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new Unauthenticated(`${what} is malformed`, { cause: error });
  }
}

function stringArray(what: string, value: unknown, max: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Unauthenticated(`${what} must be an array of strings`);
  if (value.length > max) throw new Unauthenticated(`${what} has more than ${max} entries`);
  if (!value.every((v): v is string => typeof v === "string")) throw new Unauthenticated(`${what} must be an array of strings`);
  return [...new Set(value)];
}

/**
 * Unknown roles are kept (an external IdP may add its own) but grant nothing; a role that
 * claims project administration must name a valid project id, or the whole identity is refused.
 */
function checkRole(role: string): void {
  // eslint-disable-next-line no-control-regex
  if (role.length === 0 || role.length > MAX_ROLE_LENGTH || /[\u0000-\u001f\u007f-\u009f]/.test(role)) {
    throw new Unauthenticated("roles claim contains a malformed role");
  }
  if (role.startsWith(PROJECT_ADMIN_ROLE_PREFIX)) {
    checked("project-admin role", () => validateProjectId(role.slice(PROJECT_ADMIN_ROLE_PREFIX.length)));
  }
}

/**
 * Builds an Identity from untrusted parts (token claims or an authorizer context), failing
 * closed: any missing or malformed part is `Unauthenticated`, never a partial identity.
 */
export function parseIdentity(candidate: IdentityCandidate): Identity {
  if (typeof candidate.login !== "string" || candidate.login === "") throw new Unauthenticated("user login (sub) is missing");
  if (typeof candidate.tenant !== "string" || candidate.tenant === "") throw new Unauthenticated("tenant is missing");
  const login = candidate.login;
  const tenant = candidate.tenant;
  checked("user login (sub)", () => validateLogin(login));
  checked("tenant", () => validateTenantId(tenant));
  const projects = stringArray("projects claim", candidate.projects, MAX_PROJECTS);
  for (const project of projects) checked("projects claim", () => validateProjectId(project));
  const roles = stringArray("roles claim", candidate.roles, MAX_ROLES);
  for (const role of roles) checkRole(role);
  return Object.freeze({ login, tenant, projects: Object.freeze(projects), roles: Object.freeze(roles) });
}

export const isTenantAdmin = (identity: Identity): boolean => identity.roles.includes(TENANT_ADMIN_ROLE);

export const isProjectAdmin = (identity: Identity, projectId: string): boolean => identity.roles.includes(projectAdminRole(projectId));

export const isProjectMember = (identity: Identity, projectId: string): boolean => identity.projects.includes(projectId);

/** The lane user of a verified identity (HTTP and WebSocket alike): copies, so the message holds no shared arrays. */
export const laneUserOf = (identity: Identity): LaneUser => ({
  login: identity.login,
  roles: [...identity.roles],
  projects: [...identity.projects],
});
