import { InvalidRequest } from "../errors.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import { DEFAULT_LLM_TIMEOUT_MS } from "../llm/llm-config.js";
import type { LlmPort } from "../llm/llm-port.js";
import { llmScriptBindings } from "../llm/llm-script-binding.js";
import type { HostFunction } from "../sandbox/host-call.js";
import type { SandboxPool } from "../sandbox/sandbox-pool.js";
import { runScript } from "../sandbox/script-runtime.js";
import { MAX_PENDING_TEXT_BYTES } from "../processes/process-limits.js";
import { truncateUtf8 } from "../steering/steering-limits.js";
import type { GuardEvaluation, GuardRunner, GuardVerdict } from "../turns/guard-runner.js";
import { guardSource } from "./guard-source.js";
import type { Logger } from "../support/logger.js";

interface SandboxedGuardRunnerDeps {
  /** Where `guard script <path>` documents are read. */
  sources: Pick<CascadeSources, "store" | "bundled">;
  llm: LlmPort;
  /**
   * The LLM port's own per-call timeout. A slow model must answer null (and the guard go on)
   * before the guard's deadline cuts the whole evaluation, so the deadline is set above it.
   */
  llmTimeoutMs?: number;
  /** The guard's deadline; must exceed llmTimeoutMs. Default: llmTimeoutMs + 5 s. */
  timeoutMs?: number;
  pool?: SandboxPool;
  logger?: Pick<Logger, "info" | "warn">;
}

/** Room for the guard's own work around one LLM call. */
const GUARD_MARGIN_MS = 5_000;
/** A host call's own cap sits between the LLM timeout and the guard deadline (at most this far above the former). */
const HOST_CALL_MARGIN_MS = 1_000;

const SILENT: Pick<Logger, "info" | "warn"> = { info: () => undefined, warn: () => undefined };

/**
 * Runs the completion guard (spec §2a, shooty) in the sandbox on turn complete, with
 * `vance.guard.task`, `vance.guard.output`, `vance.guard.continueWith(text)` and
 * `vance.llm.callForJson(name, instruction, input)`.
 *
 * `continueWith` is a collected intent, not a write: the lane appends the `_guard` message and
 * schedules the turn in the same process update that completes the turn (one mutation per lane
 * message). The last call wins. Every failure fails open — a throwing guard, a timeout, a
 * missing script, an LLM answering null — it is logged and the turn completes without a
 * follow-up; an intent collected before the failure is dropped, since the guard never finished.
 * A final turn ends the process, so its guard is not run at all (nothing could follow it).
 */
export class SandboxedGuardRunner implements GuardRunner {
  private readonly llmTimeoutMs: number;
  private readonly timeoutMs: number;
  /** One host call (the LLM) may run past the model's timeout, never to the guard's deadline. */
  private readonly hostCallTimeoutMs: number;
  private readonly logger: Pick<Logger, "info" | "warn">;

  constructor(private readonly deps: SandboxedGuardRunnerDeps) {
    this.llmTimeoutMs = deps.llmTimeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
    this.timeoutMs = deps.timeoutMs ?? this.llmTimeoutMs + GUARD_MARGIN_MS;
    if (this.timeoutMs <= this.llmTimeoutMs) {
      throw new TypeError(`The guard timeout (${this.timeoutMs} ms) must exceed the LLM timeout (${this.llmTimeoutMs} ms)`);
    }
    this.hostCallTimeoutMs = this.llmTimeoutMs + Math.min(HOST_CALL_MARGIN_MS, Math.floor((this.timeoutMs - this.llmTimeoutMs) / 2));
    this.logger = deps.logger ?? SILENT;
  }

  async evaluate(evaluation: GuardEvaluation): Promise<GuardVerdict> {
    const { process, turnId } = evaluation;
    const guard = process.guard;
    if (guard === null || evaluation.final) return {};
    const context = {
      processId: process.processId,
      turnId,
      guardType: guard.type,
      ...(guard.type === "script" ? { guardPath: guard.path } : {}),
    };
    let continueWith: string | undefined;
    const collect: HostFunction = ([text]) => {
      if (typeof text !== "string" || text.trim() === "")
        throw new InvalidRequest("vance.guard.continueWith: the text must be a non-empty string");
      continueWith = truncateUtf8(text, MAX_PENDING_TEXT_BYTES);
      return undefined;
    };
    try {
      const source = await guardSource(process, guard, this.deps.sources);
      await runScript({
        source,
        bindings: {
          guard: { task: evaluation.task ?? "", output: evaluation.output, continueWith: collect },
          llm: llmScriptBindings(this.deps.llm),
        },
        limits: { timeoutMs: this.timeoutMs, hostCallTimeoutMs: this.hostCallTimeoutMs },
        pool: this.deps.pool,
        tenant: process.tenant,
        onLog: (entry) => this.logger.info("guard log", { ...context, guardLevel: entry.level, guardMessage: entry.message }),
      });
    } catch (error) {
      this.logger.warn("Guard failed; the turn completes without it (fail open)", { ...context, error: describe(error) });
      return {};
    }
    return continueWith === undefined ? {} : { continueWith };
  }
}

const describe = (error: unknown): Record<string, unknown> =>
  error instanceof Error ? { name: error.name, message: error.message.slice(0, 1_000) } : { message: String(error).slice(0, 1_000) };
