import { createRemoteJWKSet } from "jose";
import type { JWTVerifyGetKey } from "jose";
import { ENV, readConfig } from "../config/config.js";
import type { ConfigEnvironment } from "../config/config.js";
import { asAuthConfigurationError, AuthConfigurationError } from "./auth-errors.js";

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

export interface LoadAuthConfigOptions {
  /** Overrides `SKILLS_LOCAL_MODE`; the local stack passes `true`. */
  readonly localMode?: boolean;
  /** Needed only when `SKILLS_JWT_SECRET_ARN` is set. */
  readonly secretSource?: SecretSource;
  /** Seam for tests; defaults to jose's cached, rate-limited remote key set. */
  readonly remoteJwks?: (url: URL) => JWTVerifyGetKey;
}

/** The variables behind token verification (names, schemas and docs: shared/config/config.ts). */
const AUTH_SETTINGS = ["jwtSecret", "jwtSecretArn", "jwksUrl", "jwtIssuer", "jwtAudience", "localMode", "awsExecutionEnv"] as const;

const isLoopback = (url: URL): boolean => url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";

/**
 * Reads the verification settings once (module scope of a handler). Fails closed: with no
 * usable key the service refuses to start rather than accept every token or none silently.
 */
export async function loadAuthConfig(env: ConfigEnvironment, options: LoadAuthConfigOptions = {}): Promise<AuthConfig> {
  const settings = readConfig(env, AUTH_SETTINGS, { errorAs: asAuthConfigurationError });
  const localMode = options.localMode ?? settings.localMode;
  // AWS_EXECUTION_ENV is set by the Lambda runtime itself (e.g. `AWS_Lambda_nodejs20.x`), never by the local stack.
  if (localMode && (settings.awsExecutionEnv ?? "").startsWith("AWS_Lambda_")) {
    throw new AuthConfigurationError("Local mode (and its default secret) is refused inside AWS Lambda");
  }

  let secret = settings.jwtSecret;
  const secretArn = settings.jwtSecretArn;
  if (secret === undefined && secretArn !== undefined) {
    if (options.secretSource === undefined)
      throw new AuthConfigurationError(`${ENV.jwtSecretArn} is set but no secret source is available`);
    const resolved = await options.secretSource(secretArn);
    secret = resolved.trim() === "" ? undefined : resolved;
    if (secret === undefined) throw new AuthConfigurationError(`The secret behind ${ENV.jwtSecretArn} is empty`);
  }

  const jwksUrl = settings.jwksUrl;
  if (jwksUrl !== undefined && jwksUrl.protocol !== "https:" && !(localMode && isLoopback(jwksUrl) && jwksUrl.protocol === "http:")) {
    throw new AuthConfigurationError(`${ENV.jwksUrl} must use https`);
  }
  const jwks = jwksUrl === undefined ? undefined : (options.remoteJwks ?? ((url) => createRemoteJWKSet(url)))(jwksUrl);

  if (secret === undefined && jwks === undefined) {
    if (!localMode)
      throw new AuthConfigurationError(`No token verification key: set ${ENV.jwtSecret}, ${ENV.jwtSecretArn} or ${ENV.jwksUrl}`);
    secret = LOCAL_DEV_SECRET;
  }
  if (secret !== undefined && !localMode && new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    throw new AuthConfigurationError(`The HS256 secret must be at least ${MIN_SECRET_BYTES} bytes outside local mode`);
  }

  return {
    ...(secret === undefined ? {} : { secret }),
    ...(jwks === undefined ? {} : { jwks }),
    ...(settings.jwtIssuer === undefined ? {} : { issuer: settings.jwtIssuer }),
    ...(settings.jwtAudience === undefined ? {} : { audience: settings.jwtAudience }),
  };
}
