/**
 * Loads data for a page: the value, whether it is loading, the error if it failed, and `reload`. A load started
 * later wins over an earlier one still under way (filters typed quickly), and nothing is set after unmount.
 */
import { type DependencyList, useCallback, useEffect, useRef, useState } from "react";

export interface Loaded<T> {
  data: T | undefined;
  loading: boolean;
  error: unknown;
  /** Loads again; `quiet` keeps the current data on screen meanwhile (polling). */
  reload(quiet?: boolean): Promise<void>;
}

export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when `load` changes.
  const stableLoad = useCallback(load, deps);

  const reload = useCallback(
    async (quiet = false) => {
      const mine = ++generation.current;
      if (!quiet) setLoading(true);
      try {
        const value = await stableLoad();
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
      } catch (caught) {
        if (mine === generation.current) setError(caught);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [stableLoad],
  );

  useEffect(() => {
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  return { data, loading, error, reload };
}
