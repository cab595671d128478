/**
 * Runs an operator action (a button press): whether it is under way, its error (shown by the caller), and a guard
 * against pressing twice while it runs.
 */
import { useCallback, useState } from "react";

export interface Action<A extends unknown[]> {
  run(...args: A): Promise<boolean>;
  busy: boolean;
  error: unknown;
  clear(): void;
}

export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (...args: A) => {
      setBusy(true);
      setError(null);
      try {
        await action(...args);
        return true;
      } catch (caught) {
        setError(caught);
        return false;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, error, clear: () => setError(null) };
}
