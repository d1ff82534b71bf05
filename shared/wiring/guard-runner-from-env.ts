import { secretFromParametersAndSecretsExtension } from "../auth/aws-secrets-extension.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { ConfigEnvironment } from "../config/config.js";
import { llmPortFor } from "./create-llm-port.js";
import { DEFAULT_LLM_TIMEOUT_MS, llmConfigFromEnv } from "../llm/llm-config.js";
import { SandboxedGuardRunner } from "../guards/sandboxed-guard-runner.js";
import type { Logger } from "../support/logger.js";

/**
 * The guard runner of the lane worker (the only function that completes turns), with the LLM
 * endpoint the environment configures (shared/llm/llm-config.ts; none: every call answers null
 * and LLM guards fail open). Kept out of app-from-env.ts so only the functions that import it
 * bundle the sandbox host side.
 */
export function guardRunnerFromEnv(
  sources: Pick<CascadeSources, "store" | "bundled">,
  env: ConfigEnvironment = process.env,
  logger?: Pick<Logger, "info" | "warn">,
): SandboxedGuardRunner {
  const config = llmConfigFromEnv(env);
  const llm = llmPortFor(config, {
    // The key is read like the JWT secret: through the Parameters and Secrets extension, on first use.
    resolveSecret: secretFromParametersAndSecretsExtension(),
    ...(logger ? { logger } : {}),
  });
  return new SandboxedGuardRunner({
    sources,
    llm,
    llmTimeoutMs: config?.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS,
    ...(logger ? { logger } : {}),
  });
}
