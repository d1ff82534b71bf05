import { SignJWT } from "jose";
import { InvalidRequest } from "../errors.js";
import { parseIdentity, PROJECT_ADMIN_ROLE_PREFIX, TENANT_ADMIN_ROLE } from "./identity.js";
import type { Identity } from "./identity.js";

interface IssueTokenOptions {
  /** Seconds, or a jose time span such as `"12h"`, `"30m"`, `"7d"`. */
  readonly ttl: number | string;
  readonly issuer?: string;
  readonly audience?: string;
  /** Seam for tests. */
  readonly now?: Date;
}

const TTL_SPAN = /^\d{1,6}\s?(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks)$/i;

function ttlSeconds(ttl: number | string): number {
  if (typeof ttl === "number") {
    if (!Number.isInteger(ttl) || ttl <= 0) throw new InvalidRequest(`Token ttl must be a positive whole number of seconds, got ${ttl}`);
    return ttl;
  }
  const match = TTL_SPAN.exec(ttl.trim());
  if (!match) throw new InvalidRequest(`Token ttl '${ttl}' is not a duration such as 3600, 30m, 12h or 7d`);
  const amount = Number.parseInt(ttl, 10);
  const unit = (match[1] ?? "s").toLowerCase()[0];
  const factor = unit === "m" ? 60 : unit === "h" ? 3600 : unit === "d" ? 86_400 : unit === "w" ? 604_800 : 1;
  if (amount <= 0) throw new InvalidRequest(`Token ttl must be positive`);
  return amount * factor;
}

/**
 * Only roles the service understands: a typo such as `tenant_admin` would otherwise produce a
 * token that silently grants nothing.
 */
function checkKnownRoles(roles: readonly string[]): void {
  for (const role of roles) {
    if (role !== TENANT_ADMIN_ROLE && !role.startsWith(PROJECT_ADMIN_ROLE_PREFIX)) {
      throw new InvalidRequest(`Unknown role '${role}': use '${TENANT_ADMIN_ROLE}' or '${PROJECT_ADMIN_ROLE_PREFIX}<projectId>'`);
    }
  }
}

/** An HS256 token carrying exactly the claims verifyToken reads (dev tokens, tests, the local stack). */
export async function issueToken(identity: Identity, secret: string, options: IssueTokenOptions): Promise<string> {
  if (typeof secret !== "string" || secret.length === 0) throw new InvalidRequest("A signing secret is required");
  let checked: Identity;
  try {
    checked = parseIdentity(identity);
  } catch (error) {
    throw new InvalidRequest(
      error instanceof Error ? error.message.replace(/^Unauthenticated: /, "Cannot issue a token: ") : "Invalid identity",
      { cause: error },
    );
  }
  checkKnownRoles(checked.roles);
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  let jwt = new SignJWT({ tenant: checked.tenant, projects: [...checked.projects], roles: [...checked.roles] })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(checked.login)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds(options.ttl));
  if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
