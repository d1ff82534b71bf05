/**
 * A loader run on its first call only: later calls share its promise. A failed load is not kept,
 * so a module import that failed once (a transient read error) is tried again by the next call.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
