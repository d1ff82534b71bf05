import { ENV, readConfig } from "../config/config.js";
import type { SecretSource } from "./auth-config.js";
import { asAuthConfigurationError, AuthConfigurationError } from "./auth-errors.js";

/**
 * Reads a Secrets Manager secret through the AWS Parameters and Secrets Lambda Extension
 * (a localhost HTTP cache; CDK: `paramsAndSecrets` on the function plus `secret.grantRead`).
 * This keeps the Secrets Manager SDK out of the authorizer bundle and its cold start, and
 * keeps the secret itself out of the function's environment variables.
 */
interface SecretsExtensionOptions {
  readonly port?: number;
  /** The extension authenticates callers with the function's own session token. */
  readonly sessionToken?: string;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

interface SecretValue {
  SecretString?: unknown;
}

export function secretFromParametersAndSecretsExtension(options: SecretsExtensionOptions = {}): SecretSource {
  return async (secretId: string): Promise<string> => {
    const settings = readConfig(process.env, ["secretsExtensionHttpPort", "awsSessionToken"], { errorAs: asAuthConfigurationError });
    const port = options.port ?? settings.secretsExtensionHttpPort;
    const sessionToken = options.sessionToken ?? settings.awsSessionToken;
    if (sessionToken === undefined || sessionToken === "")
      throw new AuthConfigurationError(`${ENV.awsSessionToken} is not set; cannot call the secrets extension`);
    const url = `http://localhost:${port}/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`;
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(url, {
        headers: { "X-Aws-Parameters-Secrets-Token": sessionToken },
        signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
      });
    } catch (error) {
      throw new AuthConfigurationError("The Parameters and Secrets extension did not answer", { cause: error });
    }
    if (!response.ok)
      throw new AuthConfigurationError(`The Parameters and Secrets extension answered ${response.status} for the JWT secret`);
    const value = (await response.json()) as SecretValue;
    if (typeof value.SecretString !== "string") throw new AuthConfigurationError("The JWT secret has no SecretString");
    return value.SecretString;
  };
}
