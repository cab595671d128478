import { useEffect, useRef } from "react";

/** Calls `tick` every `ms` while mounted (and while the tab is visible: a hidden tab need not poll the host). */
export function useInterval(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    const id = window.setInterval(() => {
      if (document.visibilityState === "visible") latest.current();
    }, ms);
    return () => window.clearInterval(id);
  }, [ms]);
}
