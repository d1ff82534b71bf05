import type { ConfigurationError } from "../config/config-errors.js";
import { SkillsError } from "../errors.js";

/**
 * What a 401 adds to its reason: what to send and where a token comes from (issue 30: a bare
 * "Unauthorized" left a new user guessing).
 */
export const TOKEN_HINT =
  "send 'Authorization: Bearer <token>' (WebSocket: ?token=<token>); a token comes from your identity provider, or is signed with the service's secret by `npx skills token --tenant <tenant> --user <login> --projects <project>` (the local stack prints a dev token when it starts)";

/**
 * No identity could be established: no token, a bad token, or an authorizer context that is
 * absent or malformed. `reason` is for logs and the 401 message; it never echoes the token.
 */
export class Unauthenticated extends SkillsError {
  readonly code = "UNAUTHENTICATED";
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Unauthenticated: ${reason}; ${TOKEN_HINT}`, options);
  }
}

/** The identity is known but may not do this (another tenant's path, a project it is not in, …). */
export class Forbidden extends SkillsError {
  readonly code = "FORBIDDEN";
}

/**
 * The service cannot verify tokens as configured (no secret, a weak secret outside local mode,
 * the local default requested inside Lambda). Deliberately INTERNAL: a caller cannot fix it,
 * and failing every request is the only safe outcome.
 */
export class AuthConfigurationError extends SkillsError {
  readonly code = "INTERNAL";
}

/** An invalid auth setting (shared/config/config.ts) is one more reason tokens cannot be verified. */
export const asAuthConfigurationError = (error: ConfigurationError): AuthConfigurationError =>
  new AuthConfigurationError(error.message, { cause: error });
