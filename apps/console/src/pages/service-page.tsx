/**
 * One service: its state and the switch that enables it, config and secrets forms generated from its schemas, its
 * secret headers and query parameters, its connected accounts, its policy, its tools, updating it (from a URL, or to
 * another registry version) and deleting it.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ServiceDetail } from "../api/types";
import { ConnectionsSection } from "../components/connections-section";
import { Dialog } from "../components/dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { ConfigSection, SecretsSection } from "../components/owner-settings";
import { PageHeader } from "../components/page-header";
import { PolicySection } from "../components/policy-editor";
import { Progress } from "../components/progress";
import { SecretHeadersSection } from "../components/secret-headers";
import { ServiceTools } from "../components/service-tools";
import { useSkipLink } from "../components/skip-links";
import { Switch } from "../components/switch";
import { TimeAgo } from "../components/time-ago";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Link, navigate, useLocation } from "../router/router";

export function ServicePage({ id }: { id: string }) {
  const { search } = useLocation();
  const service = useLoad(() => unwrap(api.GET("/services/{id}", { params: { path: { id } } })), [id]);
  // The tools come after the configuration, secrets and policy forms: dozens of Tabs without this.
  useSkipLink("tools-table", "Skip to tools");
  // Bumped whenever something that changes the tools' flags or policies is saved, so the tool list reloads.
  const [revision, setRevision] = useState(0);
  const refresh = () => {
    setRevision((n) => n + 1);
    void service.reload(true);
  };
  const enable = useAction(async (enabled: boolean) => {
    await unwrap(api.POST("/services/{id}/enabled", { params: { path: { id } }, body: { enabled } }));
    refresh();
  });

  if (service.loading && !service.data) return <Loading what={`Loading service ${id}`} />;
  if (!service.data) {
    return (
      <>
        <PageHeader title={id} />
        <ErrorBox error={service.error} title="Could not load the service" />
        <Link to="/services">Back to services</Link>
      </>
    );
  }
  const data = service.data;
  return (
    <>
      <PageHeader title={data.id}>
        <Switch
          checked={data.enabled}
          label="Service enabled"
          disabled={enable.busy}
          onChange={(next) => void enable.run(next)}
        />
      </PageHeader>
      <p className="lead">
        {data.name} <span className="muted">· {data.adapter}</span>
        {data.version && <span className="muted"> · version {data.version}</span>} · {data.toolCount} tools · updated{" "}
        <TimeAgo at={data.updatedAt} />
      </p>
      {search.get("installed") === "1" && (
        <p className="success" role="status">
          Installed. Set its configuration and secrets, then enable it.
        </p>
      )}
      {data.description && <p className="muted">{data.description}</p>}
      {enable.busy && <Progress label={data.enabled ? "Disabling" : "Validating configuration and enabling"} />}
      <ErrorBox
        error={enable.error}
        title={data.enabled ? "The service was not disabled" : "The service was not enabled"}
      />
      {data.stale && (
        <div className="error-box" role="alert">
          <strong>Stale</strong>
          <p>{data.staleReason ?? "The adapter no longer accepts the stored definition. Update the service."}</p>
        </div>
      )}
      {data.error && (
        <div className="error-box" role="alert">
          <strong>Enabled but not running</strong>
          <p>{data.error}</p>
        </div>
      )}
      <div className="two-columns">
        <ConfigSection owner="services" id={id} schema={data.configSchema} onSaved={refresh} />
        <SecretsSection owner="services" id={id} schema={data.secretsSchema} onSaved={refresh} />
      </div>
      <SecretHeadersSection id={id} onSaved={refresh} />
      <ConnectionsSection serviceId={id} />
      <PolicySection serviceId={id} onSaved={refresh} />
      <ServiceTools serviceId={id} revision={revision} />
      <UpdateSection service={data} onUpdated={refresh} />
      <DangerZone id={id} />
    </>
  );
}

function UpdateSection({ service, onUpdated }: { service: ServiceDetail; onUpdated(): void }) {
  const [url, setUrl] = useState("");
  const [version, setVersion] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const fromRegistry = service.source !== null;
  const update = useAction(async () => {
    setResult(null);
    if (fromRegistry) {
      const answer = await unwrap(
        api.POST("/services/{id}/update", {
          params: { path: { id: service.id } },
          body: version.trim() ? { version: version.trim() } : {},
        }),
      );
      setResult(
        answer.updated
          ? `Updated from ${answer.fromVersion ?? "?"} to ${answer.toVersion ?? "?"}.`
          : "Already up to date.",
      );
    } else {
      const answer = await unwrap(
        api.PATCH("/services/{id}", { params: { path: { id: service.id } }, body: { url: url.trim() } }),
      );
      setResult(answer.updated ? "Updated: the tools were generated again." : "The definition is unchanged.");
    }
    onUpdated();
  });
  return (
    <section className="card" aria-labelledby="update-title">
      <h2 id="update-title">Update</h2>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          void update.run();
        }}
      >
        {fromRegistry ? (
          <label className="grow">
            <span>
              Version <span className="muted">(exact or a range; empty for the latest)</span>
            </span>
            <input
              value={version}
              onChange={(event) => setVersion(event.target.value)}
              placeholder={service.version ?? ""}
            />
          </label>
        ) : (
          <label className="grow">
            New definition URL
            <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
          </label>
        )}
        <button type="submit" className="button" disabled={update.busy}>
          {update.busy ? "Updating…" : "Update"}
        </button>
      </form>
      {update.busy && <Progress label="Downloading and generating the tools again" />}
      <ErrorBox error={update.error} title="The service was not updated" />
      {result && !update.error && (
        <p className="success" role="status">
          {result}
        </p>
      )}
    </section>
  );
}

function DangerZone({ id }: { id: string }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useAction(async () => {
    await unwrap(api.DELETE("/services/{id}", { params: { path: { id } } }));
    navigate("/services");
  });
  return (
    <section className="card danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title">Delete</h2>
      <p className="muted">Deleting removes the service, its tools, config, secrets and policy.</p>
      <button type="button" className="button danger" onClick={() => setConfirming(true)}>
        Delete service
      </button>
      <Dialog open={confirming} title={`Delete ${id}?`} onClose={() => setConfirming(false)}>
        <p>
          Code that calls <code>cyrnel.services.{id}</code> will fail. This cannot be undone.
        </p>
        <ErrorBox error={remove.error} title="The service was not deleted" />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
          <button type="button" className="button danger" disabled={remove.busy} onClick={() => void remove.run()}>
            {remove.busy ? "Deleting…" : "Delete"}
          </button>
        </div>
      </Dialog>
    </section>
  );
}
