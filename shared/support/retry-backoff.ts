/** Waits `ms`, or less when `signal` aborts; never rejects, so callers decide what an abort means. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/**
 * "Full jitter": a random delay up to an exponentially growing ceiling. Writers that lost the
 * same race spread out instead of colliding again in lockstep.
 */
export const jitteredBackoffMs = (attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1)));
