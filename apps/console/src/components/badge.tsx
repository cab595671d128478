import type { ReactNode } from "react";

export type Tone = "neutral" | "good" | "warn" | "bad" | "info";

export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** The tone of a process's state or exit state, a policy action, an approval state. */
export function toneOf(value: string | null | undefined): Tone {
  switch (value) {
    case "success":
    case "ok":
    case "allow":
    case "approved":
    case "idle":
      return "good";
    case "running":
    case "queued":
    case "terminating":
      return "info";
    case "suspended":
    case "ask":
    case "pending":
    case "timeout":
    case "canceled":
    case "expired":
      return "warn";
    case "failed":
    case "deny":
    case "denied":
      return "bad";
    default:
      return "neutral";
  }
}
