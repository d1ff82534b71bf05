import { TENANT_PROJECT_NAME, USER_PROJECT_PREFIX } from "../documents/document-path.js";
import { ProcessNotFound } from "../processes/process-errors.js";
import { Forbidden } from "./auth-errors.js";
import { isProjectAdmin, isProjectMember, isTenantAdmin, PROJECT_ADMIN_ROLE_PREFIX, TENANT_ADMIN_ROLE } from "./identity.js";
import type { Identity } from "./identity.js";

/**
 * API.md "Authentication and authorization", as pure functions over an Identity. Every rule
 * fails closed: a project name that is none of the known forms grants nothing.
 *
 * Decision: `project-admin:P` counts as a member of P. An administrator who could overwrite
 * and delete P's documents but not read them would be absurd, and tokens from an IdP may list
 * the admin role without repeating the membership.
 */

const isSameTenant = (identity: Identity, tenant: string): boolean => typeof tenant === "string" && identity.tenant === tenant;

/** A `{tenant}` in the path that differs from the token's tenant → 403 FORBIDDEN. */
export function assertTenant(identity: Identity, pathTenant: string): void {
  if (!isSameTenant(identity, pathTenant)) throw new Forbidden(`Tenant '${identity.tenant}' may not access another tenant`);
}

const userProjectOwner = (project: string): string | undefined =>
  project.startsWith(USER_PROJECT_PREFIX) ? project.slice(USER_PROJECT_PREFIX.length) : undefined;

/** Member of P, admin of P, or tenant-admin; reserved names (`_…`) are never real projects. */
function hasProjectAccess(identity: Identity, projectId: string): boolean {
  if (typeof projectId !== "string" || projectId === "" || projectId.startsWith("_")) return false;
  return isTenantAdmin(identity) || isProjectMember(identity, projectId) || isProjectAdmin(identity, projectId);
}

/** Read documents of `project` (a project id, `_tenant` or `_user_<login>`) in the caller's own tenant. */
export function canReadDocuments(identity: Identity, project: string): boolean {
  if (project === TENANT_PROJECT_NAME) return true;
  const owner = userProjectOwner(project);
  // "that user only", literally: not even a tenant-admin reads another user's documents.
  if (owner !== undefined) return owner === identity.login;
  return hasProjectAccess(identity, project);
}

/** Write (PUT/DELETE) documents of `project` in the caller's own tenant. */
export function canWriteDocuments(identity: Identity, project: string): boolean {
  if (project === TENANT_PROJECT_NAME) return isTenantAdmin(identity);
  const owner = userProjectOwner(project);
  if (owner !== undefined) return owner === identity.login;
  if (typeof project !== "string" || project === "" || project.startsWith("_")) return false;
  return isTenantAdmin(identity) || isProjectAdmin(identity, project);
}

/** Tenant check and document read rule in one call, so a handler cannot do only half. */
export function assertCanReadDocuments(identity: Identity, pathTenant: string, project: string): void {
  assertTenant(identity, pathTenant);
  if (!canReadDocuments(identity, project)) throw new Forbidden(documentRefusal(identity, project, "read"));
}

export function assertCanWriteDocuments(identity: Identity, pathTenant: string, project: string): void {
  assertTenant(identity, pathTenant);
  if (!canWriteDocuments(identity, project)) throw new Forbidden(documentRefusal(identity, project, "write"));
}

const shownList = (items: readonly string[]): string =>
  items.length === 0
    ? "none"
    : items
        .slice(0, 10)
        .map((i) => `'${i}'`)
        .join(", ") + (items.length > 10 ? ", …" : "");

/**
 * A 403 on documents that says what the token lacks and how to get it (issue 30): the rule of
 * API.md's table for this level, what the token holds, and the `skills token` flags of a token
 * that would do (whoever hands out tokens can read those as the request to make).
 */
function documentRefusal(identity: Identity, project: string, action: "read" | "write"): string {
  const head = `Not allowed to ${action} documents of '${project}' as '${identity.login}'`;
  const holds = `this token has projects ${shownList(identity.projects)} and roles ${shownList(identity.roles)}`;
  const owner = userProjectOwner(project);
  if (owner !== undefined)
    return `${head}: the documents of '${project}' are ${owner}'s alone (no role grants them to anyone else); use '_user_${identity.login}' for your own`;
  if (project === TENANT_PROJECT_NAME) {
    return `${head}: writing '_tenant' needs the role '${TENANT_ADMIN_ROLE}', ${holds}; ask for a token with it (npx skills token … --roles ${TENANT_ADMIN_ROLE})`;
  }
  if (project === "" || project.startsWith("_")) return `${head}: '${project}' is not a level (a project id, '_tenant' or '_user_<login>')`;
  if (action === "read") {
    return `${head}: reading needs membership in '${project}' (or the role '${TENANT_ADMIN_ROLE}'), ${holds}; ask for a token that lists it (npx skills token … --projects ${project})`;
  }
  return `${head}: writing needs the role '${PROJECT_ADMIN_ROLE_PREFIX}${project}' (or '${TENANT_ADMIN_ROLE}'); membership alone is read-only; ${holds}; ask for a token with it (npx skills token … --roles ${PROJECT_ADMIN_ROLE_PREFIX}${project})`;
}

export const canAccessProject = (identity: Identity, projectId: string): boolean => hasProjectAccess(identity, projectId);

/** Listing skills with `projectId=P` and spawning a process in P. */
export function assertProjectAccess(identity: Identity, projectId: string): void {
  if (!hasProjectAccess(identity, projectId)) {
    throw new Forbidden(
      `Not a member of project '${projectId}': this token has projects ${shownList(identity.projects)}; ask for a token that lists it (npx skills token … --projects ${projectId})`,
    );
  }
}

type OwnedProcess = {
  readonly tenant: string;
  readonly processId: string;
  readonly projectId: string;
  readonly userId?: string | undefined;
};

/**
 * API.md "Processes belong to their user": composing, previewing, turns, completing, tools,
 * steering, subscribing, request status and FOOT are the owner's only — a process renders its
 * owner's `_user_` skills, so anyone else would read them through it. Another tenant's process
 * is reported exactly like a missing one, so tenants never learn each other's process ids. A
 * process without an owner (none is spawned so over the API) holds no `_user_` level and stays
 * open to the project's members.
 */
export function assertProcessAccess(identity: Identity, process: OwnedProcess): void {
  if (!isSameTenant(identity, process.tenant)) throw new ProcessNotFound(process.processId);
  assertProjectAccess(identity, process.projectId);
  if (process.userId !== undefined && process.userId !== identity.login) {
    throw new Forbidden(`Process '${process.processId.slice(0, 80)}' belongs to another user`);
  }
}

/** `GET …/processes/{id}` and its active skills (metadata, no skill content): the owner, `project-admin:P` or tenant-admin. */
export function assertProcessMetadataAccess(identity: Identity, process: OwnedProcess): void {
  if (!isSameTenant(identity, process.tenant)) throw new ProcessNotFound(process.processId);
  if (isTenantAdmin(identity) || isProjectAdmin(identity, process.projectId)) return;
  assertProcessAccess(identity, process);
}

/**
 * Whether the caller gets the process's content, not only its metadata: exactly the callers the
 * owner-only routes admit (its user; anyone of the project for a process stored before processes
 * had users). A project-admin or tenant-admin who is not the owner sees the metadata view.
 */
export function isProcessContentReader(identity: Identity, process: OwnedProcess): boolean {
  try {
    assertProcessAccess(identity, process);
    return true;
  } catch {
    return false;
  }
}
