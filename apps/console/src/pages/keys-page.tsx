/**
 * API keys: the stored keys (never their values), creating one (its key is shown once, in a dialog, and kept nowhere
 * else), and revoking one. CYRNEL_API_KEY is not a stored key and is not listed. A revoked key stays listed, marked
 * revoked (when and by whom), with nothing left to do to it.
 */
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import type { CreatedKey, KeyRecord } from "../api/types";
import { Badge } from "../components/badge";
import { CallerName, forgetKeyNames } from "../components/caller-name";
import { Dialog } from "../components/dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { TimeAgo } from "../components/time-ago";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";

export function KeysPage() {
  const keys = useLoad(() => unwrap(api.GET("/keys", { params: { query: { limit: 1000 } } })), []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeyRecord | null>(null);
  return (
    <>
      <PageHeader title="API keys" />
      <p className="muted">
        Give each agent a key of its own: an <strong>agent</strong> key runs code and calls tools (limited to the
        services you list) but cannot administer the host.
      </p>
      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          void keys.reload(true);
        }}
      />
      <ErrorBox error={keys.error} title="Could not list keys" />
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data &&
        (keys.data.items.length === 0 ? (
          <p className="empty">No stored keys. The host is used with CYRNEL_API_KEY only.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Services</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.items.map((key) => (
                  <tr key={key.id}>
                    <td>
                      <strong>{key.name}</strong>
                      <div className="muted">
                        <code>{key.id}</code>
                      </div>
                    </td>
                    <td>
                      <Badge tone={key.role === "admin" ? "warn" : "info"}>{key.role}</Badge>
                    </td>
                    <td>
                      {key.services === null ? (
                        <span className="muted">all</span>
                      ) : (
                        key.services.join(", ") || <span className="muted">none</span>
                      )}
                    </td>
                    <td>
                      <TimeAgo at={key.lastUsedAt} />
                    </td>
                    <td>{key.expiresAt ? <TimeAgo at={key.expiresAt} /> : <span className="muted">never</span>}</td>
                    <td>
                      <KeyStatus record={key} />
                    </td>
                    <td>
                      {key.revokedAt === null && (
                        <button
                          type="button"
                          className="button small danger"
                          onClick={() => setRevoking(key)}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <ShowOnce created={created} onClose={() => setCreated(null)} />
      <RevokeDialog
        target={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={() => {
          setRevoking(null);
          forgetKeyNames();
          void keys.reload(true);
        }}
      />
    </>
  );
}

/** Revoked (when, by whom: its key's name, or bootstrap), expired, or active. */
function KeyStatus({ record }: { record: KeyRecord }) {
  if (record.revokedAt !== null) {
    return (
      <span data-testid="key-revoked">
        <Badge tone="bad">revoked</Badge>{" "}
        <span className="muted">
          <TimeAgo at={record.revokedAt} />
          {record.revokedBy !== null && (
            <>
              {" by "}
              <CallerName keyId={record.revokedBy === "bootstrap" ? null : record.revokedBy} />
            </>
          )}
        </span>
      </span>
    );
  }
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now())
    return <Badge tone="warn">expired</Badge>;
  return <Badge tone="good">active</Badge>;
}

function CreateKeyForm({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<"agent" | "admin">("agent");
  const [services, setServices] = useState("");
  const [expires, setExpires] = useState("");
  // The host allows ids of services not installed yet (the key reaches them once they are); a typo would go unseen,
  // so unknown ids are named and the key is created only after "Create anyway".
  const installed = useLoad(
    async () =>
      new Set((await unwrap(api.GET("/services", { params: { query: { limit: 1000 } } }))).items.map((s) => s.id)),
    [],
  );
  const [unknownToConfirm, setUnknownToConfirm] = useState<string[] | null>(null);
  const list = services
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const create = useAction(async () => {
    const key = await unwrap(
      api.POST("/keys", {
        body: {
          name: name.trim(),
          role,
          ...(role === "agent" && services.trim() && { services: list }),
          ...(expires && { expiresAt: new Date(expires).toISOString() }),
        },
      }),
    );
    forgetKeyNames();
    setUnknownToConfirm(null);
    setName("");
    setServices("");
    setExpires("");
    onCreated(key);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const known = installed.data;
    const unknown = role === "agent" && known ? list.filter((id) => !known.has(id)) : [];
    if (unknown.length > 0) setUnknownToConfirm(unknown);
    else void create.run();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div className="row">
        <label className="grow">
          Name
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            maxLength={100}
            placeholder="reporting-bot"
          />
        </label>
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.target.value as "agent" | "admin")}>
            <option value="agent">agent</option>
            <option value="admin">admin</option>
          </select>
        </label>
      </div>
      <div className="row">
        <label className="grow">
          <span>
            Services <span className="muted">(agent keys: comma-separated ids; empty for all)</span>
          </span>
          <input
            value={services}
            onChange={(event) => {
              setServices(event.target.value);
              setUnknownToConfirm(null);
            }}
            disabled={role === "admin"}
            placeholder="weather, crm"
          />
        </label>
        <label>
          <span>
            Expires <span className="muted">(optional)</span>
          </span>
          <input type="datetime-local" value={expires} onChange={(event) => setExpires(event.target.value)} />
        </label>
      </div>
      {unknownToConfirm && (
        <div className="notice stack" role="alert">
          <p>
            <strong>
              {unknownToConfirm.length === 1 ? "No service is installed as" : "No services are installed as"}{" "}
              {unknownToConfirm.map((id) => `“${id}”`).join(", ")}.
            </strong>{" "}
            The key can name a service that is not installed yet (it reaches it once it is), but a misspelt id gives the
            agent nothing. Create the key anyway?
          </p>
          <div className="row">
            <button type="button" className="button primary" disabled={create.busy} onClick={() => void create.run()}>
              Create anyway
            </button>
            <button type="button" className="button" onClick={() => setUnknownToConfirm(null)}>
              Edit the services
            </button>
          </div>
        </div>
      )}
      <ErrorBox error={create.error} title="The key was not created" />
      <div>
        <button type="submit" className="button primary" disabled={create.busy || name.trim() === ""}>
          {create.busy ? "Creating…" : "Create key"}
        </button>
      </div>
    </form>
  );
}

function ShowOnce({ created, onClose }: { created: CreatedKey | null; onClose(): void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <Dialog
      open={created !== null}
      title="Key created"
      onClose={() => {
        setCopied(false);
        onClose();
      }}
    >
      {created && (
        <div className="stack">
          <p>
            This is the only time the key of <strong>{created.name}</strong> is shown: the host keeps only its hash.
            Copy it now.
          </p>
          <label>
            Key
            <input
              className="key-value"
              readOnly
              value={created.key}
              onFocus={(event) => event.currentTarget.select()}
              data-testid="created-key"
            />
          </label>
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => void copy()}>
              {copied ? "Copied" : "Copy"}
            </button>
            <button type="button" className="button primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

function RevokeDialog({
  target,
  onClose,
  onRevoked,
}: {
  target: KeyRecord | null;
  onClose(): void;
  onRevoked(): void;
}) {
  const revoke = useAction(async () => {
    if (!target) return;
    await unwrap(api.DELETE("/keys/{id}", { params: { path: { id: target.id } } }));
    onRevoked();
  });
  return (
    <Dialog open={target !== null} title={`Revoke ${target?.name ?? ""}?`} onClose={onClose}>
      <p>
        The next request with this key is refused, and tool calls of processes it started fail. It stays on this list,
        marked revoked; it cannot be restored.
      </p>
      <ErrorBox error={revoke.error} title="The key was not revoked" />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={revoke.busy} onClick={() => void revoke.run()}>
          {revoke.busy ? "Revoking…" : "Revoke key"}
        </button>
      </div>
    </Dialog>
  );
}
