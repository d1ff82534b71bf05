/**
 * Counts AWS requests per service and operation with an SDK middleware (enabled in tests, the
 * bench and debug logs): the figure that costs money on AWS is round trips, not CPU.
 */
export interface RequestCounts {
  /** `<Service>.<Command>` → number of requests sent (retries included: each is a round trip). */
  readonly byOperation: ReadonlyMap<string, number>;
  total(service?: string): number;
  reset(): void;
  snapshot(): Record<string, number>;
}

interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (
        next: (args: unknown) => Promise<unknown>,
        context: { clientName?: string; commandName?: string },
      ) => (args: unknown) => Promise<unknown>,
      options: { step: "finalizeRequest"; name: string; override?: boolean },
    ): void;
  };
}

export class AwsRequestCounter implements RequestCounts {
  private readonly counts = new Map<string, number>();

  get byOperation(): ReadonlyMap<string, number> {
    return this.counts;
  }

  /** Instruments a client; the count is taken per attempt, after signing, so retries count too. */
  instrument<C>(client: C): C {
    (client as unknown as MiddlewareClient).middlewareStack.add(
      (next, context) => async (args) => {
        const service = (context.clientName ?? "Unknown").replace(/Client$/, "");
        const key = `${service}.${(context.commandName ?? "Unknown").replace(/Command$/, "")}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        return next(args);
      },
      { step: "finalizeRequest", name: "skillsRequestCounter", override: true },
    );
    return client;
  }

  total(service?: string): number {
    let sum = 0;
    for (const [key, count] of this.counts) if (service === undefined || key.startsWith(`${service}.`)) sum += count;
    return sum;
  }

  reset(): void {
    this.counts.clear();
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}
