/** One approval: what is asked, by which process and key, and (pending) the buttons that decide it. */
import type { Approval } from "../api/types";
import { Link } from "../router/router";
import { Badge, toneOf } from "./badge";
import { TimeAgo } from "./time-ago";

export function ApprovalCard({
  approval,
  onDecide,
}: {
  approval: Approval;
  onDecide?(verb: "approve" | "deny"): void;
}) {
  const label = `${approval.serviceId}.${approval.toolId}`;
  return (
    <article className="card approval" aria-label={`Approval ${approval.id}: ${label}`}>
      <header className="approval-head">
        <code>{label}</code>
        <Badge tone={toneOf(approval.state)}>{approval.state}</Badge>
        <span className="muted">
          <Link to={`/processes/${approval.processId}`}>process {approval.processId}</Link>
          {approval.keyId && <> · key {approval.keyId}</>} · <TimeAgo at={approval.createdAt} />
        </span>
      </header>
      <pre className="code-block small">{JSON.stringify(approval.parameters, null, 2)}</pre>
      {approval.state !== "pending" && (
        <p className="muted">
          {approval.state} <TimeAgo at={approval.decidedAt} />
          {approval.decidedBy && <> by {approval.decidedBy}</>}
          {approval.reason && <> — “{approval.reason}”</>}
        </p>
      )}
      {approval.state === "pending" && onDecide && (
        <div className="row">
          <button type="button" className="button primary" onClick={() => onDecide("approve")}>
            Approve
          </button>
          <button type="button" className="button danger" onClick={() => onDecide("deny")}>
            Deny
          </button>
        </div>
      )}
    </article>
  );
}
