import type { CascadeSources } from "../documents/cascade-layers.js";
import type { ConfigEnvironment } from "../config/config.js";
import { llmConfigFromEnv } from "../llm/llm-config.js";
import type { GuardRunner } from "../turns/guard-runner.js";
import type { Logger } from "../support/logger.js";
import { GuardRunnerOnFirstUse } from "./ports-on-first-use.js";

/**
 * The guard runner of the lane worker (the only function that completes turns), with the LLM
 * endpoint the environment configures (shared/llm/llm-config.ts). Kept out of app-from-env.ts so
 * only the functions that import it bundle the sandbox host side, and built on the first guard:
 * a turn runs one only on completion, when its process has one. The configuration is read now,
 * so a half-done one still fails the init.
 */
export function guardRunnerFromEnv(
  sources: Pick<CascadeSources, "store" | "bundled">,
  env: ConfigEnvironment = process.env,
  logger?: Pick<Logger, "info" | "warn">,
): GuardRunner {
  const config = llmConfigFromEnv(env);
  return new GuardRunnerOnFirstUse(async () => (await import("./lane-worker-adapters.js")).sandboxedGuardRunner(sources, config, logger));
}
