/**
 * `Prefer: wait` holds a function (a Lambda instance, a local socket) for up to 20 s. A caller that
 * opens hundreds of waits at once would hold that many and slow everyone's lane (hardening
 * issue); so each identity may wait on at most `limit` requests at a time, and past that gets
 * 429 TOO_MANY_REQUESTS with Retry-After. The slot outlives a crashed holder by its lease only.
 */
export const DEFAULT_MAX_WAITS_PER_IDENTITY = 8;

/**
 * Spawns one identity may have in flight at once (hardening issue: per-identity caps). A spawn
 * takes a few conditional writes; more than this at the same time is a storm, not a user.
 */
export const DEFAULT_MAX_CONCURRENT_SPAWNS_PER_IDENTITY = 4;

/**
 * Trigger evals runs (`GET …/evals`) one identity may have at once (issue 28: two concurrent runs
 * of one member held the event loop for another tenant's request). A run yields the loop, but
 * still takes up to its 5 s budget of CPU; a second one at the same time is 429 with Retry-After.
 */
export const DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY = 1;

export interface WaitSlots {
  readonly limit: number;
  /** A release function, or undefined when the identity holds every slot already. */
  acquire(tenant: string, login: string, leaseMs: number): Promise<(() => Promise<void>) | undefined>;
}

/** One container's count per identity: exact where everything runs in one process (the local stack, tests). */
export class InMemoryWaitSlots implements WaitSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number = DEFAULT_MAX_WAITS_PER_IDENTITY) {}

  async acquire(tenant: string, login: string): Promise<(() => Promise<void>) | undefined> {
    const key = `${tenant}\u0000${login}`;
    const count = this.held.get(key) ?? 0;
    if (count >= this.limit) return undefined;
    this.held.set(key, count + 1);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }
}
