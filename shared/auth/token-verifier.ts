import { errors, jwtVerify } from "jose";
import type { JWTHeaderParameters, JWTVerifyGetKey, FlattenedJWSInput } from "jose";
import type { AuthConfig } from "./auth-config.js";
import { Unauthenticated } from "./auth-errors.js";
import { parseIdentity } from "./identity.js";
import type { Identity } from "./identity.js";

/** A JWT is a few hundred bytes; anything this large is not ours and not worth parsing. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

const HS_ALGORITHMS = ["HS256"];
const RS_ALGORITHMS = ["RS256"];

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) return `token claim '${error.claim}' is invalid (${error.reason})`;
  if (error instanceof errors.JOSEAlgNotAllowed) return "token algorithm is not allowed";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (error instanceof errors.JWKSNoMatchingKey) return "no key matches the token";
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return "token is malformed";
  return "token could not be verified";
}

/**
 * The key is picked by the token's `alg` among the configured ones only, so an HS256 token can
 * never be checked against an RSA public key (algorithm confusion) and `none` never gets a key.
 */
function keyResolver(config: AuthConfig): { algorithms: string[]; getKey: JWTVerifyGetKey } {
  const secret = config.secret === undefined ? undefined : new TextEncoder().encode(config.secret);
  const jwks = config.jwks;
  const algorithms = [...(secret ? HS_ALGORITHMS : []), ...(jwks ? RS_ALGORITHMS : [])];
  const getKey: JWTVerifyGetKey = async (header: JWTHeaderParameters, token: FlattenedJWSInput) => {
    if (secret && HS_ALGORITHMS.includes(header.alg)) return secret;
    if (jwks && RS_ALGORITHMS.includes(header.alg)) return jwks(header, token);
    throw new errors.JOSEAlgNotAllowed(`"alg" (Algorithm) Header Parameter value not allowed`);
  };
  return { algorithms, getKey };
}

/**
 * Verifies signature, expiry (`exp` is required), issuer and audience when configured, then the
 * claims: `sub` and `tenant` required, `projects`/`roles` arrays of strings (default []).
 * Every failure is `Unauthenticated`; nothing from an unverified token is ever returned.
 */
export async function verifyToken(token: string, config: AuthConfig): Promise<Identity> {
  return (await verifyTokenClaims(token, config)).identity;
}

/** A verified token: who, and until when (`exp`, epoch seconds) the token proves it. */
export interface VerifiedToken {
  identity: Identity;
  expiresAt: number;
}

/** verifyToken plus the token's `exp`: a WebSocket lives longer than one request and must end with its token. */
export async function verifyTokenClaims(token: string, config: AuthConfig): Promise<VerifiedToken> {
  if (typeof token !== "string" || token.length === 0) throw new Unauthenticated("token is missing");
  if (token.length > MAX_TOKEN_LENGTH) throw new Unauthenticated("token is too long");
  const { algorithms, getKey } = keyResolver(config);
  if (algorithms.length === 0) throw new Unauthenticated("no verification key is configured");

  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, getKey, {
      algorithms,
      requiredClaims: ["exp", "sub"],
      ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
      ...(config.audience === undefined ? {} : { audience: config.audience }),
      clockTolerance: config.clockToleranceSeconds ?? 5,
    }));
  } catch (error) {
    throw new Unauthenticated(reasonOf(error), { cause: error });
  }
  const identity = parseIdentity({ login: payload.sub, tenant: payload.tenant, projects: payload.projects, roles: payload.roles });
  // `exp` is a required claim and jose checked it is a number.
  return { identity, expiresAt: payload.exp as number };
}
