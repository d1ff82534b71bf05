import { DEFAULT_LLM_TIMEOUT_MS, ENV, readConfig } from "../config/config.js";
import type { ConfigEnvironment } from "../config/config.js";
import type { ConfigurationError } from "../config/config-errors.js";
import { LlmConfigurationError } from "./llm-errors.js";

/**
 * Where the OpenAI-compatible chat-completions endpoint is, from the environment (names, schemas
 * and docs: shared/config/config.ts):
 * - SKILLS_LLM_URL: base URL; requests go to `{url}/chat/completions`. Unset: no LLM.
 * - SKILLS_LLM_MODEL: the `model` of each request (required with a URL).
 * - SKILLS_LLM_API_KEY: bearer token, for local use. On AWS set SKILLS_LLM_API_KEY_SECRET_ARN
 *   instead: the handler resolves the secret (Parameters and Secrets extension, see
 *   createLlmPort's `resolveSecret`) so the key never sits in the function's environment.
 * - SKILLS_LLM_TIMEOUT_MS: per request, default 15 000.
 */
export interface LlmConfig {
  url: string;
  model: string;
  apiKey?: string;
  apiKeySecretArn?: string;
  timeoutMs: number;
}

export { DEFAULT_LLM_TIMEOUT_MS };

const errorAs = (error: ConfigurationError): LlmConfigurationError => new LlmConfigurationError(error.message, { cause: error });

/** undefined when no endpoint is configured; throws LlmConfigurationError on a half-done configuration. */
export const llmConfigFromEnv = (env: ConfigEnvironment): LlmConfig | undefined => {
  // Without a URL the other settings are not looked at.
  const { llmUrl: url } = readConfig(env, ["llmUrl"], { errorAs });
  if (url === undefined) return undefined;
  const {
    llmModel: model,
    llmTimeoutMs: timeoutMs,
    llmApiKey: apiKey,
    llmApiKeySecretArn: apiKeySecretArn,
  } = readConfig(env, ["llmModel", "llmTimeoutMs", "llmApiKey", "llmApiKeySecretArn"], { errorAs });
  if (model === undefined) throw new LlmConfigurationError(`${ENV.llmModel} is required with ${ENV.llmUrl}`);
  return {
    url,
    model,
    timeoutMs,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(apiKeySecretArn === undefined ? {} : { apiKeySecretArn }),
  };
};
