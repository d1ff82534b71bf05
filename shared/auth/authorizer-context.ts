import { Unauthenticated } from "./auth-errors.js";
import { parseIdentity } from "./identity.js";
import type { Identity } from "./identity.js";

/**
 * What the authorizer hands to API Gateway. WebSocket (REST-style) authorizer contexts only
 * carry strings, numbers and booleans, so the arrays travel as JSON strings on both APIs.
 */
export interface AuthorizerContext {
  [key: string]: string;
  login: string;
  tenant: string;
  projects: string;
  roles: string;
}

/** WebSocket contexts only: `tokenExpiresAt` is the token's `exp` (epoch seconds, as a string). */
export const toAuthorizerContext = (identity: Identity, options: { tokenExpiresAt?: number } = {}): AuthorizerContext => ({
  login: identity.login,
  tenant: identity.tenant,
  projects: JSON.stringify(identity.projects),
  roles: JSON.stringify(identity.roles),
  ...(options.tokenExpiresAt === undefined ? {} : { tokenExpiresAt: String(options.tokenExpiresAt) }),
});

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function jsonArray(field: string, value: unknown): unknown {
  if (typeof value !== "string") throw new Unauthenticated(`authorizer context field '${field}' is missing`);
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new Unauthenticated(`authorizer context field '${field}' is not JSON`, { cause: error });
  }
}

/**
 * Rebuilds the Identity a handler acts for from the authorizer context, re-validating every
 * field: a missing or malformed context (a route deployed without the authorizer, a wiring
 * mistake) is `Unauthenticated`, never an anonymous or partial identity.
 */
export function identityFromAuthorizerContext(context: unknown): Identity {
  if (!isRecord(context)) throw new Unauthenticated("authorizer context is missing");
  return parseIdentity({
    login: context.login,
    tenant: context.tenant,
    projects: jsonArray("projects", context.projects),
    roles: jsonArray("roles", context.roles),
  });
}

/**
 * The Identity of an API Gateway event: HTTP API (payload v2) puts a Lambda authorizer's context
 * under `requestContext.authorizer.lambda`, the WebSocket API directly under `requestContext.authorizer`.
 */
export function identityFromEvent(event: unknown): Identity {
  const requestContext = isRecord(event) ? event.requestContext : undefined;
  const authorizer = isRecord(requestContext) ? requestContext.authorizer : undefined;
  if (!isRecord(authorizer)) throw new Unauthenticated("authorizer context is missing");
  return identityFromAuthorizerContext(isRecord(authorizer.lambda) ? authorizer.lambda : authorizer);
}

/**
 * The token expiry (epoch seconds) a WebSocket event's authorizer context carries; undefined when
 * it is missing or not a positive integer — a WebSocket caller then fails closed (ws-lifecycle.ts).
 */
export function tokenExpiryFromEvent(event: unknown): number | undefined {
  const requestContext = isRecord(event) ? event.requestContext : undefined;
  const authorizer = isRecord(requestContext) ? requestContext.authorizer : undefined;
  const raw = isRecord(authorizer) ? authorizer.tokenExpiresAt : undefined;
  const value = typeof raw === "string" && /^[0-9]{1,12}$/.test(raw) ? Number(raw) : typeof raw === "number" ? raw : Number.NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
