import { Logger } from "@aws-lambda-powertools/logger";
import { loadAuthConfig } from "../../shared/auth/auth-config.js";
import type { AuthConfig } from "../../shared/auth/auth-config.js";
import { Unauthenticated } from "../../shared/auth/auth-errors.js";
import { secretFromParametersAndSecretsExtension } from "../../shared/auth/aws-secrets-extension.js";
import { authorize, UNAUTHORIZED_MESSAGE } from "../../shared/auth/lambda-authorizer.js";
import type { AuthorizerEvent, AuthorizerResult } from "../../shared/auth/lambda-authorizer.js";
import { verifyToken } from "../../shared/auth/token-verifier.js";

/** The part of the Powertools Logger used here; tests pass a recorder. */
export interface AuthorizerLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface AuthorizerDependencies {
  readonly config: () => Promise<AuthConfig>;
  readonly logger: AuthorizerLogger;
}

/**
 * HTTP API (payload 2.0, simple responses) and WebSocket `$connect` authorizer. A missing or bad
 * token throws "Unauthorized" (API Gateway answers 401); a configuration failure throws anything
 * else (API Gateway answers 500). Either way nothing is allowed.
 */
export const createAuthorizerHandler =
  (deps: AuthorizerDependencies) =>
  async (event: AuthorizerEvent): Promise<AuthorizerResult> => {
    try {
      return await authorize(event, async (token) => verifyToken(token, await deps.config()));
    } catch (error) {
      if (error instanceof Unauthenticated) {
        deps.logger.info("Request not authenticated", { reason: error.reason });
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

export const handler = createAuthorizerHandler({ config: moduleConfig, logger: new Logger({ serviceName: "skills-authorizer" }) });
