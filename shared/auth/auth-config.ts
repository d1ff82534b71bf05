import { createRemoteJWKSet } from "jose";
import type { JWTVerifyGetKey } from "jose";
import { AuthConfigurationError } from "./auth-errors.js";

/**
 * How tokens are verified. At least one of `secret` (HS256) and `jwks` (RS256) is set;
 * `issuer`/`audience`, when set, are required to match.
 */
export interface AuthConfig {
  readonly secret?: string;
  /** `createRemoteJWKSet(url)` in production; `createLocalJWKSet` in tests. */
  readonly jwks?: JWTVerifyGetKey;
  readonly issuer?: string;
  readonly audience?: string;
  readonly clockToleranceSeconds?: number;
}

/** Only ever used when local mode is explicitly on (API.md "Running locally"). */
export const LOCAL_DEV_SECRET = "local-dev-secret";

/** RFC 7518 §3.2: an HS256 key shorter than the hash output weakens it. Enforced outside local mode. */
export const MIN_SECRET_BYTES = 32;

/** Resolves a secret by id (an ARN); see aws-secrets-extension.ts for the Lambda implementation. */
export type SecretSource = (secretId: string) => Promise<string>;

export interface AuthEnvironment {
  readonly SKILLS_JWT_SECRET?: string | undefined;
  readonly SKILLS_JWT_SECRET_ARN?: string | undefined;
  readonly SKILLS_JWT_JWKS_URL?: string | undefined;
  readonly SKILLS_JWT_ISSUER?: string | undefined;
  readonly SKILLS_JWT_AUDIENCE?: string | undefined;
  readonly SKILLS_LOCAL_MODE?: string | undefined;
  readonly AWS_EXECUTION_ENV?: string | undefined;
}

export interface LoadAuthConfigOptions {
  /** Overrides `SKILLS_LOCAL_MODE`; the local stack passes `true`. */
  readonly localMode?: boolean;
  /** Needed only when `SKILLS_JWT_SECRET_ARN` is set. */
  readonly secretSource?: SecretSource;
  /** Seam for tests; defaults to jose's cached, rate-limited remote key set. */
  readonly remoteJwks?: (url: URL) => JWTVerifyGetKey;
}

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value);

const isTruthyFlag = (value: string | undefined): boolean => value !== undefined && ["1", "true", "yes"].includes(value.toLowerCase());

// Set by the Lambda runtime itself (e.g. `AWS_Lambda_nodejs20.x`), never by the local stack.
const runsInLambda = (env: AuthEnvironment): boolean => (env.AWS_EXECUTION_ENV ?? "").startsWith("AWS_Lambda_");

function jwksUrl(raw: string, localMode: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AuthConfigurationError("SKILLS_JWT_JWKS_URL is not a valid URL");
  }
  const loopback = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(localMode && loopback && url.protocol === "http:")) {
    throw new AuthConfigurationError("SKILLS_JWT_JWKS_URL must use https");
  }
  return url;
}

/**
 * Reads the verification settings once (module scope of a handler). Fails closed: with no
 * usable key the service refuses to start rather than accept every token or none silently.
 */
export async function loadAuthConfig(env: AuthEnvironment, options: LoadAuthConfigOptions = {}): Promise<AuthConfig> {
  const localMode = options.localMode ?? isTruthyFlag(env.SKILLS_LOCAL_MODE);
  if (localMode && runsInLambda(env)) {
    throw new AuthConfigurationError("Local mode (and its default secret) is refused inside AWS Lambda");
  }

  let secret = nonEmpty(env.SKILLS_JWT_SECRET);
  const secretArn = nonEmpty(env.SKILLS_JWT_SECRET_ARN);
  if (secret === undefined && secretArn !== undefined) {
    if (options.secretSource === undefined) throw new AuthConfigurationError("SKILLS_JWT_SECRET_ARN is set but no secret source is available");
    secret = nonEmpty(await options.secretSource(secretArn));
    if (secret === undefined) throw new AuthConfigurationError("The secret behind SKILLS_JWT_SECRET_ARN is empty");
  }

  const rawJwksUrl = nonEmpty(env.SKILLS_JWT_JWKS_URL);
  const jwks = rawJwksUrl === undefined ? undefined : (options.remoteJwks ?? ((url) => createRemoteJWKSet(url)))(jwksUrl(rawJwksUrl, localMode));

  if (secret === undefined && jwks === undefined) {
    if (!localMode) throw new AuthConfigurationError("No token verification key: set SKILLS_JWT_SECRET, SKILLS_JWT_SECRET_ARN or SKILLS_JWT_JWKS_URL");
    secret = LOCAL_DEV_SECRET;
  }
  if (secret !== undefined && !localMode && new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    throw new AuthConfigurationError(`The HS256 secret must be at least ${MIN_SECRET_BYTES} bytes outside local mode`);
  }

  return {
    ...(secret === undefined ? {} : { secret }),
    ...(jwks === undefined ? {} : { jwks }),
    ...(nonEmpty(env.SKILLS_JWT_ISSUER) === undefined ? {} : { issuer: env.SKILLS_JWT_ISSUER }),
    ...(nonEmpty(env.SKILLS_JWT_AUDIENCE) === undefined ? {} : { audience: env.SKILLS_JWT_AUDIENCE }),
  };
}
