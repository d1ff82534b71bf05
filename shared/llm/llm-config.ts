import { SkillsError } from "../errors.js";

/**
 * Where the OpenAI-compatible chat-completions endpoint is, from the environment:
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

export const DEFAULT_LLM_TIMEOUT_MS = 15_000;

/** A half-configured endpoint is an operator mistake: fail at start-up, not on the first guard. */
export class LlmConfigurationError extends SkillsError {
  readonly code = "INTERNAL";
}

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** undefined when no endpoint is configured; throws LlmConfigurationError on a half-done configuration. */
export const llmConfigFromEnv = (env: Record<string, string | undefined>): LlmConfig | undefined => {
  const url = nonEmpty(env.SKILLS_LLM_URL);
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LlmConfigurationError("SKILLS_LLM_URL is not a URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new LlmConfigurationError("SKILLS_LLM_URL must be http(s)");
  const model = nonEmpty(env.SKILLS_LLM_MODEL);
  if (model === undefined) throw new LlmConfigurationError("SKILLS_LLM_MODEL is required with SKILLS_LLM_URL");
  const timeout = nonEmpty(env.SKILLS_LLM_TIMEOUT_MS);
  const timeoutMs = timeout === undefined ? DEFAULT_LLM_TIMEOUT_MS : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new LlmConfigurationError("SKILLS_LLM_TIMEOUT_MS must be a positive integer");
  const apiKey = nonEmpty(env.SKILLS_LLM_API_KEY);
  const apiKeySecretArn = nonEmpty(env.SKILLS_LLM_API_KEY_SECRET_ARN);
  return {
    url: url.replace(/\/+$/, ""),
    model,
    timeoutMs,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(apiKeySecretArn === undefined ? {} : { apiKeySecretArn }),
  };
};
