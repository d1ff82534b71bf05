import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { ENV } from "../config/config.js";
import type { ConfigEnvironment } from "../config/config.js";
import { llmConfigFromEnv } from "../llm/llm-config.js";
import type { LlmConfig } from "../llm/llm-config.js";
import { DisabledLlm, type LlmPort } from "../llm/llm-port.js";
import { OpenAiChatLlm } from "../llm/openai-chat-llm.js";
import type { Logger } from "../support/logger.js";

export interface CreateLlmPortOptions {
  /**
   * Reads a Secrets Manager secret by ARN (on Lambda: secretFromParametersAndSecretsExtension
   * from shared/auth). Needed when SKILLS_LLM_API_KEY_SECRET_ARN is set.
   */
  resolveSecret?: (secretId: string) => Promise<string>;
  /** Defaults to a Powertools Logger (level from POWERTOOLS_LOG_LEVEL). */
  logger?: Pick<Logger, "warn">;
  fetch?: typeof fetch;
}

/**
 * The LlmPort for this process, configured by environment (see llmConfigFromEnv): without
 * SKILLS_LLM_URL a DisabledLlm (every call null, guards fail open). The secret is fetched on
 * first use and kept; a failed fetch is retried on the next call (that call answers null).
 */
export const createLlmPort = (env: ConfigEnvironment, options: CreateLlmPortOptions = {}): LlmPort =>
  llmPortFor(llmConfigFromEnv(env), options);

/** The LlmPort for an already parsed configuration (undefined: a DisabledLlm). */
export const llmPortFor = (config: LlmConfig | undefined, options: CreateLlmPortOptions = {}): LlmPort => {
  if (!config) return new DisabledLlm();
  const logger = options.logger ?? new PowertoolsLogger({ serviceName: "skills-llm" });
  let apiKey: string | (() => Promise<string | undefined>) | undefined = config.apiKey;
  const secretArn = config.apiKeySecretArn;
  if (apiKey === undefined && secretArn !== undefined) {
    const resolveSecret = options.resolveSecret;
    if (!resolveSecret) throw new TypeError(`${ENV.llmApiKeySecretArn} is set but no resolveSecret was given`);
    let cached: Promise<string> | undefined;
    apiKey = () => {
      cached ??= resolveSecret(secretArn).catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
      return cached;
    };
  }
  return new OpenAiChatLlm({
    url: config.url,
    model: config.model,
    timeoutMs: config.timeoutMs,
    logger,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
};
