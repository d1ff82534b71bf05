import { secretFromParametersAndSecretsExtension } from "../auth/aws-secrets-extension.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import { llmPortFor } from "./create-llm-port.js";
import { DEFAULT_LLM_TIMEOUT_MS } from "../llm/llm-config.js";
import type { LlmConfig } from "../llm/llm-config.js";
import { SandboxedGuardRunner } from "../guards/sandboxed-guard-runner.js";
import type { Logger } from "../support/logger.js";

/**
 * The guard runner with the LLM endpoint of `config` (none: every call answers null and LLM guards
 * fail open). Imported by guard-runner-from-env.ts on the first guard, with the sandbox host side.
 */
export function sandboxedGuardRunner(
  sources: Pick<CascadeSources, "store" | "bundled">,
  config: LlmConfig | undefined,
  logger?: Pick<Logger, "info" | "warn">,
): SandboxedGuardRunner {
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
