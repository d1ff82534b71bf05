/**
 * A limiter: at most `limit` of the functions passed to it run at once, the rest wait in order.
 * Requests of a push share one, so hundreds of skills never open hundreds of connections.
 */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function limiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`concurrency must be a positive integer, got ${limit}`);
  let running = 0;
  const waiting: (() => void)[] = [];
  // A finished task hands its slot straight to the next waiter, so a newcomer cannot overtake it.
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
