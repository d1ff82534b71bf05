import type { HostCallContext } from "./host-call.js";
import { HostCallTimedOut } from "./sandbox-errors.js";

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";

/**
 * One host call in flight on the main thread. Most host functions answer synchronously, so
 * the AbortController and the timeout timer only come into being when needed (the signal is
 * read, or the function returns a promise): a host call then costs little more than the
 * thread round trip.
 */
export class PendingHostCall {
  readonly context: HostCallContext;
  private controller: AbortController | undefined;
  private abortReason: Error | undefined;
  private rejectRace: ((reason: Error) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    path: string,
    depth: number,
    private readonly timeoutMs: number,
  ) {
    const signal = (): AbortSignal => this.signal();
    this.context = {
      path,
      depth,
      get signal(): AbortSignal {
        return signal();
      },
    };
  }

  /** Ends the call from outside (its evaluation ended, or it timed out): tells the host function and settles the race. */
  abort(reason: Error): void {
    if (this.abortReason) return;
    this.abortReason = reason;
    this.clearTimer();
    this.controller?.abort(reason);
    this.rejectRace?.(reason);
  }

  /**
   * Calls `fn` and hands its outcome to `settle` exactly once: synchronously for a plain value
   * or throw, later for a promise (which loses against the timeout and abort()).
   */
  run(fn: () => unknown, onSettled: (outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => void): void {
    const settle = (outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void => {
      this.clearTimer();
      onSettled(outcome);
    };
    let value: unknown;
    try {
      value = fn();
    } catch (error) {
      settle({ ok: false, error });
      return;
    }
    if (!isThenable(value)) {
      settle({ ok: true, value });
      return;
    }
    if (this.abortReason) {
      settle({ ok: false, error: this.abortReason });
      return;
    }
    this.timer ??= setTimeout(() => this.abort(new HostCallTimedOut(this.context.path, this.timeoutMs)), this.timeoutMs);
    new Promise<unknown>((resolve, reject) => {
      this.rejectRace = reject;
      value.then(resolve, reject);
    }).then(
      (resolved) => settle({ ok: true, value: resolved }),
      (error: unknown) => settle({ ok: false, error }),
    );
  }

  private signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason) this.controller.abort(this.abortReason);
      // A host function that watches the signal expects it to fire on timeout even before it returns a promise.
      else this.timer ??= setTimeout(() => this.abort(new HostCallTimedOut(this.context.path, this.timeoutMs)), this.timeoutMs);
    }
    return this.controller.signal;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
