/**
 * The model behind `vance.llm.callForJson` (spec §2a, code-guard): one instruction, one JSON
 * input, one JSON answer. `null` means "no usable answer" (no endpoint configured, HTTP or
 * timeout failure, non-JSON reply); callers such as guards then fail open.
 */
export interface LlmPort {
  callForJson(name: string, instruction: string, input: unknown, options?: LlmCallOptions): Promise<unknown>;
}

export interface LlmCallOptions {
  /** Aborts the call (e.g. the script's host call timed out); the result is then null. */
  signal?: AbortSignal;
}

/** No endpoint configured: every call answers null, so guards fail open. */
export class DisabledLlm implements LlmPort {
  async callForJson(): Promise<unknown> {
    return null;
  }
}
