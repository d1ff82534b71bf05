import { useCallback, useEffect, useState } from "preact/hooks";
import { describeError } from "./api.js";

/** A value loaded from the API, with its error as a sentence and a reload. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: unknown) => current && setState({ error: describeError(error).message, loading: false }),
    );
    return () => {
      current = false;
    };
    // `load` is a fresh closure each render; `deps` say when it means something new.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}
