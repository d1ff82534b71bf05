import { InvalidRequest } from "../errors.js";

/**
 * Strict validation of everything that becomes part of an S3 key (SECURITY.md "Paths and S3 keys").
 * URL decoders upstream may turn `%2e%2e/`, `.%2E/` or `\..\` into real `..` steps, so nothing here
 * normalizes or decodes: anything outside a conservative ASCII class is rejected, never repaired.
 */

const MAX_SEGMENT_LENGTH = 128;
const MAX_PATH_LENGTH = 1024;

// ASCII only: rules out fullwidth dots (`．．`), other look-alikes and every NFC/NFD ambiguity at once.
const SEGMENT = /^[A-Za-z0-9._@+-]+$/;
const TENANT_ID = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/;
const PROJECT_ID = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/;
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9._@+-]{0,126}[A-Za-z0-9])?$/;

export const TENANT_PROJECT_NAME = "_tenant";
export const USER_PROJECT_PREFIX = "_user_";

/** A printable rendering of untrusted input for error messages (no control chars, bounded). */
const shown = (value: string): string => {
  const cut = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return JSON.stringify(cut).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
};

function checkCommon(kind: string, value: string, maxLength: number): void {
  if (typeof value !== "string") throw new InvalidRequest(`${kind} must be a string`);
  if (value.length === 0) throw new InvalidRequest(`${kind} must not be empty`);
  if (value.length > maxLength) throw new InvalidRequest(`${kind} is longer than ${maxLength} characters`);
  if (value.normalize("NFC") !== value) throw new InvalidRequest(`${kind} ${shown(value)} is not in Unicode NFC form`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) throw new InvalidRequest(`${kind} ${shown(value)} contains control characters`);
  const forbidden = /[\\%?#]/.exec(value);
  if (forbidden) throw new InvalidRequest(`${kind} ${shown(value)} contains the forbidden character ${shown(forbidden[0])}`);
}

function checkSegment(kind: string, whole: string, segment: string): void {
  if (segment.length === 0) throw new InvalidRequest(`${kind} ${shown(whole)} has an empty segment (leading, trailing or double '/')`);
  // `.`, `..` and any all-dots segment: some resolvers treat `...` specially too.
  if (/^\.+$/.test(segment)) throw new InvalidRequest(`${kind} ${shown(whole)} contains a dot segment ${shown(segment)}`);
  if (segment.length > MAX_SEGMENT_LENGTH) {
    throw new InvalidRequest(`${kind} ${shown(whole)} has a segment longer than ${MAX_SEGMENT_LENGTH} characters`);
  }
  if (!SEGMENT.test(segment)) {
    throw new InvalidRequest(`${kind} ${shown(whole)}: segment ${shown(segment)} may only contain letters A-Z a-z, digits and . _ - @ +`);
  }
}

/**
 * What the checks below accept, as one test: segments of SEGMENT's characters, 1 to 128 long, none
 * all dots (ASCII-only text is in NFC and holds no control or forbidden character). A cold turn
 * validates every listed skill file's path; the per-check path costs ~4 µs each before the JIT.
 */
const VALID_PATH = /^(?!\.+(?:\/|$))[A-Za-z0-9._@+-]{1,128}(?:\/(?!\.+(?:\/|$))[A-Za-z0-9._@+-]{1,128})*$/;

/** A document path relative to a project, e.g. `_vance/skills/code-review/SKILL.md`. Returns it unchanged. */
export function validateDocumentPath(path: string): string {
  if (typeof path === "string" && path.length <= MAX_PATH_LENGTH && VALID_PATH.test(path)) return path;
  return checkDocumentPath(path);
}

/** validateDocumentPath's rules one by one, so a refusal says which one failed. Returns the path unchanged. */
export function checkDocumentPath(path: string): string {
  checkCommon("Document path", path, MAX_PATH_LENGTH);
  for (const segment of path.split("/")) checkSegment("Document path", path, segment);
  return path;
}

/** The folder of the service's own documents in every level (skills, recipes, …). */
const SERVICE_FOLDER = "_vance/";

/**
 * A path a write may create. Under `_vance/` no segment may be hidden (start with `.`): such a
 * document is never a skill's file (push skips hidden files), and `skills pull` writes this tree
 * into a member's folder, where `.git/config` or `.vscode/tasks.json` would run code on the next
 * `git status` or folder open. Reads and deletes stay allowed, so what was stored before can be
 * seen and removed. Returns the path unchanged.
 */
export function validateWritableDocumentPath(path: string): string {
  validateDocumentPath(path);
  if (!path.startsWith(SERVICE_FOLDER)) return path;
  const hidden = path.split("/").find((segment) => segment.startsWith("."));
  if (hidden !== undefined) {
    throw new InvalidRequest(
      `Document path ${shown(path)}: hidden segment ${shown(hidden)} is not allowed under ${SERVICE_FOLDER} (nothing there may start with '.')`,
    );
  }
  return path;
}

/**
 * A listing prefix: empty (everything), a directory ending in `/`, or a partial last segment.
 * Same rules as a path, except that it may be empty and may end with `/`.
 */
export function validateDocumentPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  validateDocumentPath(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
  return prefix;
}

export function validateTenantId(tenant: string): string {
  checkCommon("Tenant id", tenant, 64);
  if (!TENANT_ID.test(tenant)) throw new InvalidRequest(`Tenant id ${shown(tenant)} may only contain letters, digits, '_' and '-'`);
  return tenant;
}

/** A user login as it appears in `_user_<login>` (may be an e-mail address). */
export function validateLogin(login: string): string {
  checkCommon("User login", login, 128);
  if (!LOGIN.test(login) || login.includes("..")) {
    throw new InvalidRequest(`User login ${shown(login)} may only contain letters, digits and . _ - @ +`);
  }
  return login;
}

/** A real project id; ids starting with `_` are reserved for `_tenant` and `_user_<login>`. */
export function validateProjectId(projectId: string): string {
  checkCommon("Project id", projectId, 64);
  if (!PROJECT_ID.test(projectId)) {
    throw new InvalidRequest(
      `Project id ${shown(projectId)} may only contain letters, digits, '_' and '-' and must start with a letter or digit`,
    );
  }
  return projectId;
}

/** A document project: `<projectId>`, `_tenant` or `_user_<login>`. */
export function validateProjectName(project: string): string {
  if (project === TENANT_PROJECT_NAME) return project;
  if (typeof project === "string" && project.startsWith(USER_PROJECT_PREFIX)) {
    validateLogin(project.slice(USER_PROJECT_PREFIX.length));
    return project;
  }
  return validateProjectId(project);
}

/** The key prefix of one project, ending in `/`. */
export function projectKeyPrefix(tenant: string, project: string): string {
  validateTenantId(tenant);
  validateProjectName(project);
  return `tenants/${tenant}/projects/${project}/`;
}

function assertUnderTenant(tenant: string, key: string): string {
  // Belt and braces: validation above already makes escaping impossible; this states the invariant.
  if (!key.startsWith(`tenants/${tenant}/projects/`)) throw new InvalidRequest(`Document key escapes the tenant prefix`);
  return key;
}

/** `tenants/{tenant}/projects/{project}/{path}` — the S3 key of one document. */
export function documentKey(tenant: string, project: string, path: string): string {
  return assertUnderTenant(tenant, projectKeyPrefix(tenant, project) + validateDocumentPath(path));
}

/** The key prefix a listing of `prefix` inside one project covers. */
export function documentKeyPrefix(tenant: string, project: string, prefix: string): string {
  return assertUnderTenant(tenant, projectKeyPrefix(tenant, project) + validateDocumentPrefix(prefix));
}

/** Non-throwing form for filtering foreign keys found in a store. */
export function isValidDocumentPath(path: string): boolean {
  try {
    validateDocumentPath(path);
    return true;
  } catch {
    return false;
  }
}
