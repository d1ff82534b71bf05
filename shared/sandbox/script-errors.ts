import { SkillsError } from "../errors.js";

/** One `vance.log(level, msg)` entry of a script. */
export interface ScriptLogEntry {
  level: ScriptLogLevel;
  message: string;
}

export type ScriptLogLevel = "debug" | "info" | "warn" | "error";

/**
 * Failures of a guard or skill script (runScript). They carry the logs the script wrote before
 * it failed, for the tool result's trace.
 *
 * Code "INVALID_REQUEST": the script is the skill author's code and its inputs are the
 * caller's, so a failure is neither retryable nor a server fault (HTTP 400, not 500). A
 * dedicated code (e.g. SCRIPT_FAILED → 422) would be more precise; shared/errors.ts does not
 * have one yet. Because the code is not INTERNAL, a nested script's failure reaches the
 * calling script's `catch` with its message. Infrastructure failures (SandboxUnavailable,
 * code INTERNAL) pass through runScript unchanged.
 */
export abstract class ScriptFailure extends SkillsError {
  readonly code = "INVALID_REQUEST";
  logs: ScriptLogEntry[] = [];
}

/** The script threw or did not parse. `line` is 1-based in the script source when known. */
export class ScriptError extends ScriptFailure {
  constructor(
    message: string,
    readonly guestErrorName?: string,
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The script's result, serialized as JSON, is larger than allowed. */
export class ScriptResultTooLarge extends ScriptError {
  constructor(
    readonly maxResultBytes: number,
    options?: { cause?: unknown },
  ) {
    super(`script result exceeds ${maxResultBytes} bytes`, undefined, undefined, options);
  }
}

/** The script ran past its deadline (host calls included: the deadline is wall-clock time). */
export class ScriptTimeout extends ScriptFailure {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`script exceeded ${timeoutMs} ms`, options);
  }
}

/** The script exhausted its heap, or its stack (unbounded recursion). */
export class ScriptMemoryExceeded extends ScriptFailure {
  constructor(
    readonly kind: "heap" | "stack",
    options?: { cause?: unknown },
  ) {
    super(kind === "stack" ? "script exceeded its stack (recursion too deep)" : "script exceeded its memory limit", options);
  }
}

/** A script ran a tool that ran a script … deeper than allowed. */
export class ScriptDepthExceeded extends ScriptFailure {
  constructor(readonly maxDepth: number) {
    super(`scripts nested deeper than ${maxDepth} levels`);
  }
}
