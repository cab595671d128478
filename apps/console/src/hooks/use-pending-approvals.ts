/**
 * How many approvals wait, for the navigation and the page title: the exact count from `GET /stats` (one summary
 * request, from indexes, whatever the number of processes), read every PENDING_POLL_MS while the tab is visible and
 * at once when a page decides approvals (`refreshPendingApprovals`). One reader per tab, shared by every subscriber.
 */
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";

export const PENDING_POLL_MS = 10_000;

let pending: number | null = null;
const listeners = new Set<(count: number | null) => void>();
let timer: number | undefined;

/** Reads the count now and tells every subscriber (a failed read keeps the last count). */
export async function refreshPendingApprovals(): Promise<void> {
  try {
    const stats = await unwrap(api.GET("/stats"));
    pending = stats.approvals.pending;
    for (const listener of listeners) listener(pending);
  } catch {
    // The page the operator looks at reports its own errors; a count is a hint.
  }
}

export function usePendingApprovals(): number | null {
  const [count, setCount] = useState(pending);
  useEffect(() => {
    listeners.add(setCount);
    if (listeners.size === 1) {
      void refreshPendingApprovals();
      timer = window.setInterval(() => {
        if (document.visibilityState === "visible") void refreshPendingApprovals();
      }, PENDING_POLL_MS);
    }
    return () => {
      listeners.delete(setCount);
      if (listeners.size === 0) window.clearInterval(timer);
    };
  }, []);
  return count;
}
