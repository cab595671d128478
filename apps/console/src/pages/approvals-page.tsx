/**
 * The approvals inbox. It stays live by polling GET /approvals?state=pending every 2 seconds: approvals come from any
 * process, and following every suspended process's event stream would still need a poll to find new ones (and would
 * hold one of each process's limited follower slots). New arrivals are announced to screen readers. Pending ones are
 * read a page of PAGE_SIZE at a time ("Show more" adds a page to what each poll reads), narrowed by service, tool and
 * key (the host filters; kept in the URL); each carries a preview of its parameters, when it expires and whether its
 * tool is destructive. One decides them one at a time (the dialog reads the whole approval) or many at once: select
 * them (or all shown) and approve or deny them with one reason, in one request.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ApprovalListItem, ApprovalSummary } from "../api/types";
import { ApprovalCard } from "../components/approval-card";
import { BulkDecisionDialog } from "../components/bulk-decision-dialog";
import { keyNames } from "../components/caller-name";
import { DecisionDialog, type Verb } from "../components/decision-dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { useInterval } from "../hooks/use-interval";
import { useLoad } from "../hooks/use-load";
import { refreshPendingApprovals } from "../hooks/use-pending-approvals";
import { navigate, useLocation } from "../router/router";

export const APPROVALS_POLL_MS = 2000;
const PAGE_SIZE = 100;
/** How the host's filter names the bootstrap key (CYRNEL_API_KEY), whose approvals carry no key id. */
const BOOTSTRAP = "bootstrap";

export function ApprovalsPage() {
  const { search } = useLocation();
  const serviceId = search.get("serviceId") ?? "";
  const toolId = search.get("toolId") ?? "";
  const keyId = search.get("keyId") ?? "";
  const [pages, setPages] = useState(1);
  const pending = useLoad(async () => {
    const items: ApprovalListItem[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const query = {
        state: "pending" as const,
        limit: PAGE_SIZE,
        ...(serviceId && { serviceId }),
        ...(toolId && { toolId }),
        ...(keyId && { keyId }),
        ...(cursor !== undefined && { cursor }),
      };
      const read = await unwrap(api.GET("/approvals", { params: { query } }));
      items.push(...read.items);
      if (read.nextCursor === null) return { items, more: false };
      cursor = read.nextCursor;
    }
    return { items, more: true };
  }, [pages, serviceId, toolId, keyId]);
  const recent = useLoad(
    async () => (await unwrap(api.GET("/approvals", { params: { query: { limit: 20 } } }))).items,
    [],
  );
  const services = useLoad(
    async () =>
      (await unwrap(api.GET("/services", { params: { query: { limit: 1000 } } }))).items.map((service) => service.id),
    [],
  );
  const keys = useLoad(keyNames, []);
  useInterval(() => {
    void pending.reload(true);
    void recent.reload(true);
  }, APPROVALS_POLL_MS);
  const [deciding, setDeciding] = useState<{ approval: ApprovalSummary; verb: Verb } | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [bulk, setBulk] = useState<{ approvals: ApprovalListItem[]; verb: Verb } | null>(null);
  const [bulkDone, setBulkDone] = useState<string | null>(null);
  const decided = (recent.data ?? []).filter((approval) => approval.state !== "pending");
  const shown = pending.data?.items ?? [];
  // Only what is still pending and shown counts as selected (a poll may have taken some away).
  const chosen = shown.filter((approval) => selected.has(approval.id));
  const allChosen = shown.length > 0 && chosen.length === shown.length;

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value === "") next.delete(name);
    else next.set(name, value);
    const query = next.toString();
    setSelected(new Set());
    navigate(`/approvals${query ? `?${query}` : ""}`, { replace: true });
  };
  const select = (id: number, on: boolean) =>
    setSelected((ids) => {
      const next = new Set(ids);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const afterDecisions = () => {
    void pending.reload(true);
    void recent.reload(true);
    void refreshPendingApprovals();
  };

  return (
    <>
      <PageHeader title="Approvals" />
      <p className="muted">
        Calls of tools whose policy is <strong>ask</strong> wait here; their process is suspended (its timeout paused)
        until you decide. Updated every {APPROVALS_POLL_MS / 1000} seconds.
      </p>
      <div className="filters">
        <label>
          Service
          <select value={serviceId} onChange={(event) => setFilter("serviceId", event.target.value)}>
            <option value="">any</option>
            {(services.data ?? []).map((id) => (
              <option key={id}>{id}</option>
            ))}
            {serviceId && !services.data?.includes(serviceId) && <option>{serviceId}</option>}
          </select>
        </label>
        <label>
          Tool
          <input
            type="search"
            value={toolId}
            placeholder="Exact tool id"
            onChange={(event) => setFilter("toolId", event.target.value.trim())}
          />
        </label>
        <label>
          Key
          <select value={keyId} onChange={(event) => setFilter("keyId", event.target.value)}>
            <option value="">any</option>
            <option value={BOOTSTRAP}>bootstrap (CYRNEL_API_KEY)</option>
            {[...(keys.data ?? [])].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">
          Pending{" "}
          <span className="count">
            {pending.data ? `${pending.data.items.length}${pending.data.more ? "+" : ""}` : ""}
          </span>
        </h2>
        <ErrorBox error={pending.error} title="Could not load pending approvals" />
        {pending.loading && !pending.data && <Loading what="Loading approvals" />}
        {bulkDone && (
          <p className="success" role="status">
            {bulkDone}
          </p>
        )}
        {shown.length > 0 && (
          <div className="row bulk-actions">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={allChosen}
                onChange={(event) =>
                  setSelected(new Set(event.target.checked ? shown.map((approval) => approval.id) : []))
                }
              />
              Select all {shown.length} shown
            </label>
            <button
              type="button"
              className="button primary"
              disabled={chosen.length === 0}
              onClick={() => setBulk({ approvals: chosen, verb: "approve" })}
            >
              Approve {chosen.length} selected
            </button>
            <button
              type="button"
              className="button danger"
              disabled={chosen.length === 0}
              onClick={() => setBulk({ approvals: chosen, verb: "deny" })}
            >
              Deny {chosen.length} selected
            </button>
          </div>
        )}
        <div aria-live="polite">
          {pending.data && shown.length === 0 && (
            <p className="empty">
              {serviceId || toolId || keyId
                ? "Nothing waits that matches the filters."
                : "Nothing waits for a decision."}
            </p>
          )}
          {shown.map((approval) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              onDecide={(verb) => setDeciding({ approval, verb })}
              selected={selected.has(approval.id)}
              onSelect={(on) => select(approval.id, on)}
            />
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
          afterDecisions();
        }}
      />
      <BulkDecisionDialog
        approvals={bulk?.approvals ?? null}
        verb={bulk?.verb ?? "approve"}
        onClose={() => setBulk(null)}
        onDecided={(result) => {
          const verb = bulk?.verb === "deny" ? "Denied" : "Approved";
          setBulkDone(`${verb} ${result.decided} of ${result.results.length}.`);
          setSelected(new Set());
          if (result.decided === result.results.length) setBulk(null);
          afterDecisions();
        }}
      />
    </>
  );
}
