/**
 * A service's connected accounts: the OAuth client the operator sets up (its id, write-only secret, URLs, scopes and
 * whose account calls use), a "Connect account" button that opens the provider's sign-in in a new tab (the host's
 * callback page then says the account is connected; the list reloads when this tab is focused again), and the
 * connections with a revoke button each.
 */
import { type FormEvent, useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { OAuthSettings } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Badge } from "./badge";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";
import { TimeAgo } from "./time-ago";

export function ConnectionsSection({ serviceId }: { serviceId: string }) {
  const path = { params: { path: { id: serviceId } } };
  const settings = useLoad(() => unwrap(api.GET("/services/{id}/oauth", path)), [serviceId]);
  const connections = useLoad(() => unwrap(api.GET("/services/{id}/connections", path)), [serviceId]);
  const [opened, setOpened] = useState<string | null>(null);

  // Back from the provider's tab: the callback stored the connection meanwhile.
  useEffect(() => {
    const again = () => void connections.reload(true);
    window.addEventListener("focus", again);
    return () => window.removeEventListener("focus", again);
  }, [connections.reload]);

  const connect = useAction(async () => {
    const start = await unwrap(api.POST("/services/{id}/connections", path));
    setOpened(start.authorizationUrl);
    window.open(start.authorizationUrl, "_blank", "noopener");
  });
  const revoke = useAction(async (connectionId: string) => {
    await unwrap(
      api.DELETE("/services/{id}/connections/{connectionId}", {
        params: { path: { id: serviceId, connectionId } },
      }),
    );
    await connections.reload(true);
  });
  const turnOff = useAction(async () => {
    await unwrap(api.DELETE("/services/{id}/oauth", path));
    await Promise.all([settings.reload(true), connections.reload(true)]);
  });

  return (
    <section className="card" aria-labelledby="connections-title">
      <h2 id="connections-title">Connected accounts</h2>
      {settings.loading && !settings.data && <Loading what="Loading the OAuth settings" />}
      <ErrorBox error={settings.error} title="Could not load the OAuth settings" />
      {settings.data && (
        <>
          <p className="muted">
            {settings.data.ready
              ? settings.data.credentials === "shared"
                ? "Every call acts for one shared account."
                : "Each key or OAuth subject acts for its own connected account."
              : settings.data.declared
                ? "The service declares an OAuth sign-in: set up a client to let calls act for a user's account."
                : "Calls use the service's secrets. To act for a user's account, set up an OAuth client."}{" "}
            Register <code>{settings.data.redirectUri}</code> as the redirect URI at the provider.
          </p>
          <ClientForm
            key={settings.data.clientId ?? ""}
            serviceId={serviceId}
            settings={settings.data}
            onSaved={() => void Promise.all([settings.reload(true), connections.reload(true)])}
          />
          {settings.data.ready && (
            <div className="row">
              <button type="button" className="button" disabled={connect.busy} onClick={() => void connect.run()}>
                {connect.busy ? "Starting…" : "Connect account"}
              </button>
              <button
                type="button"
                className="button danger"
                disabled={turnOff.busy}
                onClick={() => void turnOff.run()}
              >
                Turn connections off
              </button>
            </div>
          )}
          <ErrorBox error={connect.error} title="Could not start connecting" />
          <ErrorBox error={turnOff.error} title="Connections were not turned off" />
          {opened && (
            <p className="muted" role="status">
              The provider's sign-in opened in a new tab (good for 10 minutes). If it did not,{" "}
              <a href={opened} target="_blank" rel="noopener noreferrer">
                open it here
              </a>
              .
            </p>
          )}
        </>
      )}
      <ErrorBox error={connections.error} title="Could not load the connections" />
      <ErrorBox error={revoke.error} title="The connection was not revoked" />
      {connections.data && connections.data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Account of</th>
              <th>Scopes</th>
              <th>Token expires</th>
              <th>Connected</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {connections.data.items.map((connection) => (
              <tr key={connection.id}>
                <td>
                  {connection.owner === "shared" ? <Badge tone="info">shared</Badge> : <code>{connection.owner}</code>}
                </td>
                <td>{connection.scopes.join(" ") || <span className="muted">none</span>}</td>
                <td>
                  {connection.expiresAt ? <TimeAgo at={connection.expiresAt} /> : <span className="muted">never</span>}
                  {connection.refreshable && <span className="muted"> · refreshed automatically</span>}
                </td>
                <td>
                  <TimeAgo at={connection.createdAt} />
                </td>
                <td>
                  <button
                    type="button"
                    className="button danger"
                    disabled={revoke.busy}
                    onClick={() => void revoke.run(connection.id)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ClientForm({ serviceId, settings, onSaved }: { serviceId: string; settings: OAuthSettings; onSaved(): void }) {
  const declared = settings.declared;
  const own = (value: string | null, fallback: string | undefined) =>
    value !== null && value !== fallback ? value : "";
  const [clientId, setClientId] = useState(settings.clientId ?? "");
  const [clientSecret, setClientSecret] = useState("");
  const [authorizationUrl, setAuthorizationUrl] = useState(own(settings.authorizationUrl, declared?.authorizationUrl));
  const [tokenUrl, setTokenUrl] = useState(own(settings.tokenUrl, declared?.tokenUrl));
  const [revocationUrl, setRevocationUrl] = useState(settings.revocationUrl ?? "");
  const [scopes, setScopes] = useState(settings.scopes.join(" "));
  const [credentials, setCredentials] = useState(settings.credentials);
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    setSaved(false);
    const words = scopes.split(/\s+/).filter((scope) => scope !== "");
    await unwrap(
      api.PUT("/services/{id}/oauth", {
        params: { path: { id: serviceId } },
        body: {
          clientId: clientId.trim(),
          ...(clientSecret !== "" && { clientSecret }),
          authorizationUrl: authorizationUrl.trim() || null,
          tokenUrl: tokenUrl.trim() || null,
          revocationUrl: revocationUrl.trim() || null,
          scopes: declared && words.join(" ") === declared.scopes.join(" ") ? null : words,
          credentials,
        },
      }),
    );
    setClientSecret("");
    setSaved(true);
    onSaved();
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save.run();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="OAuth client">
      <label>
        Client id
        <input value={clientId} onChange={(event) => setClientId(event.target.value)} required />
      </label>
      <label>
        <span>
          Client secret{" "}
          <span className="muted">({settings.clientSecretSet ? "set; type to replace" : "none: a public client"})</span>
        </span>
        <input
          type="password"
          autoComplete="off"
          value={clientSecret}
          onChange={(event) => setClientSecret(event.target.value)}
        />
      </label>
      <label>
        Authorization URL
        <input
          type="url"
          value={authorizationUrl}
          placeholder={declared?.authorizationUrl ?? ""}
          required={!declared}
          onChange={(event) => setAuthorizationUrl(event.target.value)}
        />
      </label>
      <label>
        Token URL
        <input
          type="url"
          value={tokenUrl}
          placeholder={declared?.tokenUrl ?? ""}
          required={!declared}
          onChange={(event) => setTokenUrl(event.target.value)}
        />
      </label>
      <label>
        Revocation URL <span className="muted">(optional)</span>
        <input type="url" value={revocationUrl} onChange={(event) => setRevocationUrl(event.target.value)} />
      </label>
      <label>
        Scopes <span className="muted">(space-separated)</span>
        <input value={scopes} onChange={(event) => setScopes(event.target.value)} />
      </label>
      <label>
        Whose account calls use
        <select
          value={credentials}
          onChange={(event) => setCredentials(event.target.value as OAuthSettings["credentials"])}
        >
          <option value="shared">One shared account</option>
          <option value="per-caller">Each caller's own account</option>
        </select>
      </label>
      <div className="row">
        <button type="submit" className="button" disabled={save.busy}>
          {save.busy ? "Saving…" : settings.clientId ? "Save client" : "Set up client"}
        </button>
      </div>
      <ErrorBox error={save.error} title="The OAuth client was not saved" />
      {saved && !save.error && (
        <p className="success" role="status">
          Saved.
        </p>
      )}
    </form>
  );
}
