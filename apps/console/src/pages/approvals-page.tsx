/**
 * The approvals inbox. It stays live by polling GET /approvals?state=pending every 2 seconds: approvals come from any
 * process, and following every suspended process's event stream would still need a poll to find new ones (and would
 * hold one of each process's limited follower slots). New arrivals are announced to screen readers.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { Approval } from "../api/types";
import { ApprovalCard } from "../components/approval-card";
import { DecisionDialog, type Verb } from "../components/decision-dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";

export const APPROVALS_POLL_MS = 2000;

export function ApprovalsPage() {
  const pending = useLoad(
    async () => (await unwrap(api.GET("/approvals", { params: { query: { state: "pending", limit: 1000 } } }))).items,
    [],
  );
  const recent = useLoad(
    async () => (await unwrap(api.GET("/approvals", { params: { query: { limit: 20 } } }))).items,
    [],
  );
  useInterval(() => {
    void pending.reload(true);
    void recent.reload(true);
  }, APPROVALS_POLL_MS);
  const [deciding, setDeciding] = useState<{ approval: Approval; verb: Verb } | null>(null);
  const decided = (recent.data ?? []).filter((approval) => approval.state !== "pending");

  return (
    <>
      <PageHeader title="Approvals" />
      <p className="muted">
        Calls of tools whose policy is <strong>ask</strong> wait here; their process is suspended (its timeout paused)
        until you decide. Updated every {APPROVALS_POLL_MS / 1000} seconds.
      </p>
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">
          Pending <span className="count">{pending.data?.length ?? ""}</span>
        </h2>
        <ErrorBox error={pending.error} title="Could not load pending approvals" />
        {pending.loading && !pending.data && <Loading what="Loading approvals" />}
        <div aria-live="polite">
          {pending.data && pending.data.length === 0 && <p className="empty">Nothing waits for a decision.</p>}
          {pending.data?.map((approval) => (
            <ApprovalCard key={approval.id} approval={approval} onDecide={(verb) => setDeciding({ approval, verb })} />
          ))}
        </div>
      </section>
      <section aria-labelledby="decided-title">
        <h2 id="decided-title">Recently decided</h2>
        <ErrorBox error={recent.error} title="Could not load recent approvals" />
        {recent.data && decided.length === 0 && <p className="empty">No decisions yet.</p>}
        {decided.map((approval) => (
          <ApprovalCard key={approval.id} approval={approval} />
        ))}
      </section>
      <DecisionDialog
        approval={deciding?.approval ?? null}
        verb={deciding?.verb ?? "approve"}
        onClose={() => setDeciding(null)}
        onDecided={() => {
          setDeciding(null);
          void pending.reload(true);
          void recent.reload(true);
        }}
      />
    </>
  );
}
