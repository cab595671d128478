/**
 * The approvals inbox. It stays live by polling GET /approvals?state=pending every 2 seconds: approvals come from any
 * process, and following every suspended process's event stream would still need a poll to find new ones (and would
 * hold one of each process's limited follower slots). New arrivals are announced to screen readers. Pending ones are
 * read a page of PAGE_SIZE at a time ("Show more" adds a page to what each poll reads); each carries a preview of its
 * parameters, and the decision dialog reads the whole approval.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ApprovalSummary } from "../api/types";
import { ApprovalCard } from "../components/approval-card";
import { DecisionDialog, type Verb } from "../components/decision-dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";

export const APPROVALS_POLL_MS = 2000;
const PAGE_SIZE = 100;

export function ApprovalsPage() {
  const [pages, setPages] = useState(1);
  const pending = useLoad(async () => {
    const items: ApprovalSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const query = { state: "pending" as const, limit: PAGE_SIZE, ...(cursor !== undefined && { cursor }) };
      const read = await unwrap(api.GET("/approvals", { params: { query } }));
      items.push(...read.items);
      if (read.nextCursor === null) return { items, more: false };
      cursor = read.nextCursor;
    }
    return { items, more: true };
  }, [pages]);
  const recent = useLoad(
    async () => (await unwrap(api.GET("/approvals", { params: { query: { limit: 20 } } }))).items,
    [],
  );
  useInterval(() => {
    void pending.reload(true);
    void recent.reload(true);
  }, APPROVALS_POLL_MS);
  const [deciding, setDeciding] = useState<{ approval: ApprovalSummary; verb: Verb } | null>(null);
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
          Pending{" "}
          <span className="count">
            {pending.data ? `${pending.data.items.length}${pending.data.more ? "+" : ""}` : ""}
          </span>
        </h2>
        <ErrorBox error={pending.error} title="Could not load pending approvals" />
        {pending.loading && !pending.data && <Loading what="Loading approvals" />}
        <div aria-live="polite">
          {pending.data && pending.data.items.length === 0 && <p className="empty">Nothing waits for a decision.</p>}
          {pending.data?.items.map((approval) => (
            <ApprovalCard key={approval.id} approval={approval} onDecide={(verb) => setDeciding({ approval, verb })} />
          ))}
        </div>
        {pending.data?.more && (
          <button type="button" className="button" onClick={() => setPages((count) => count + 1)}>
            Show {PAGE_SIZE} more
          </button>
        )}
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
