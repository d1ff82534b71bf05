import { SkillsError } from "../errors.js";

/**
 * Failures of one sandbox evaluation. All are "INTERNAL" to the HTTP surface: whoever runs
 * untrusted code (template renderer, guards, skill scripts) maps them to its own outcome.
 * Messages never carry host stack traces or host paths.
 */

/** The guest code threw (or did not parse). `line` is 1-based in the evaluated code when known. */
export class SandboxError extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    message: string,
    readonly guestErrorName?: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/** The result, serialized as JSON, is larger than the caller allowed. */
export class SandboxOutputTooLarge extends SandboxError {
  constructor(readonly maxOutputBytes: number) {
    super(`sandbox result exceeds ${maxOutputBytes} bytes`);
  }
}

/**
 * The evaluation ran past its deadline. `killed` means the guest was stuck in a built-in that
 * never polls the interrupt handler and the worker thread had to be terminated.
 */
export class SandboxTimeout extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly timeoutMs: number,
    readonly killed = false,
  ) {
    super(`sandbox evaluation exceeded ${timeoutMs} ms${killed ? " (worker terminated)" : ""}`);
  }
}

/** The guest exhausted its memory limit. */
export class SandboxMemoryExceeded extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly memoryBytes: number,
    options?: { cause?: unknown },
  ) {
    super("sandbox evaluation exceeded its memory limit", options);
  }
}

/** The sandbox itself failed (pool closed, worker crashed, invalid request); not the guest's fault. */
export class SandboxUnavailable extends SkillsError {
  readonly code = "INTERNAL";
}

/** The caller's AbortSignal fired (e.g. the host call that started a nested evaluation gave up). */
export class SandboxAborted extends SkillsError {
  readonly code = "INTERNAL";
  constructor() {
    super("sandbox evaluation was aborted");
  }
}

/** A host function did not answer a guest's call within its deadline (the guest sees HOST_CALL_TIMEOUT). */
export class HostCallTimedOut extends Error {
  constructor(
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(`host call '${path}' timed out after ${timeoutMs} ms`);
  }
}
