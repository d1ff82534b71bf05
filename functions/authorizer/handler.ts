// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { loadAuthConfig } from "../../shared/auth/auth-config.js";
import type { AuthConfig } from "../../shared/auth/auth-config.js";
import { Unauthenticated } from "../../shared/auth/auth-errors.js";
import { secretFromParametersAndSecretsExtension } from "../../shared/auth/aws-secrets-extension.js";
import { authorize, isHttpAuthorizerEvent, UNAUTHORIZED_MESSAGE, unauthenticatedHttpResult } from "../../shared/auth/lambda-authorizer.js";
import type { AuthorizerEvent, AuthorizerResult } from "../../shared/auth/lambda-authorizer.js";
import { verifyTokenClaims } from "../../shared/auth/token-verifier.js";
import type { Logger } from "../../shared/support/logger.js";

export interface AuthorizerDependencies {
  readonly config: () => Promise<AuthConfig>;
  readonly logger: Pick<Logger, "info" | "error">;
}

/**
 * HTTP API (payload 2.0, simple responses) and WebSocket `$connect` authorizer. A missing or bad
 * token is let through on the HTTP API marked unauthenticated (the function answers 401 in
 * API.md's shape, see lambda-authorizer.ts) and throws "Unauthorized" on `$connect` (API Gateway
 * answers 401). A configuration failure throws anything else (API Gateway answers 500), so
 * nothing is let through when tokens cannot be verified at all.
 */
export const createAuthorizerHandler =
  (deps: AuthorizerDependencies) =>
  async (event: AuthorizerEvent): Promise<AuthorizerResult> => {
    try {
      return await authorize(event, async (token) => verifyTokenClaims(token, await deps.config()));
    } catch (error) {
      if (error instanceof Unauthenticated) {
        deps.logger.info("Request not authenticated", { reason: error.reason });
        if (isHttpAuthorizerEvent(event)) return unauthenticatedHttpResult(error.reason);
        throw new Error(UNAUTHORIZED_MESSAGE);
      }
      deps.logger.error("Authorizer failed", { error });
      throw error;
    }
  };

let configPromise: Promise<AuthConfig> | undefined;

/** Loaded once per container; a failed load (e.g. the secrets extension not ready) is retried next time. */
const moduleConfig = (): Promise<AuthConfig> => {
  configPromise ??= loadAuthConfig(process.env, { secretSource: secretFromParametersAndSecretsExtension() }).catch((error: unknown) => {
    configPromise = undefined;
    throw error;
  });
  return configPromise;
};

export const handler = createAuthorizerHandler({
  config: moduleConfig,
  logger: new PowertoolsLogger({ serviceName: "skills-authorizer" }),
});
