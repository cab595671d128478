/**
 * Modules: adapters and environments, built in or custom. Enabling, their config and secrets (forms generated from
 * each module's schemas), updating a custom one (to another registry version or from a .tgz URL), deleting it, and
 * reloading the modules folder.
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { ModuleRecord } from "../api/types";
import { Badge } from "../components/badge";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { ConfigSection, SecretsSection } from "../components/owner-settings";
import { PageHeader } from "../components/page-header";
import { Progress } from "../components/progress";
import { Switch } from "../components/switch";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";

export function ModulesPage() {
  const modules = useLoad(() => unwrap(api.GET("/modules")), []);
  const [open, setOpen] = useState<string | null>(null);
  const reload = useAction(async () => {
    await unwrap(api.POST("/modules/reload"));
    await modules.reload(true);
  });
  return (
    <>
      <PageHeader title="Modules">
        <button type="button" className="button" disabled={reload.busy} onClick={() => void reload.run()}>
          {reload.busy ? "Reloading…" : "Reload modules folder"}
        </button>
      </PageHeader>
      <p className="muted">
        Adapters turn definitions into tools; exactly one environment runs processes. Install custom modules from a
        registry on the Registries page.
      </p>
      <ErrorBox error={reload.error} title="The modules were not reloaded" />
      <ErrorBox error={modules.error} title="Could not list modules" />
      {modules.loading && !modules.data && <Loading what="Loading modules" />}
      <ul className="module-list">
        {modules.data?.items.map((module) => (
          <ModuleItem
            key={module.id}
            module={module}
            expanded={open === module.id}
            onToggle={() => setOpen(open === module.id ? null : module.id)}
            onChanged={() => void modules.reload(true)}
          />
        ))}
      </ul>
    </>
  );
}

function ModuleItem({
  module,
  expanded,
  onToggle,
  onChanged,
}: {
  module: ModuleRecord;
  expanded: boolean;
  onToggle(): void;
  onChanged(): void;
}) {
  const enable = useAction(async (enabled: boolean) => {
    await unwrap(api.POST("/modules/{id}/enabled", { params: { path: { id: module.id } }, body: { enabled } }));
    onChanged();
  });
  const panelId = `module-${module.id}-panel`;
  return (
    <li className="card module">
      <div className="module-head">
        <div className="grow">
          <strong>{module.name}</strong> <code className="muted">{module.id}</code>{" "}
          {module.type && <Badge tone="info">{module.type}</Badge>} {module.builtin && <Badge>built in</Badge>}{" "}
          {module.version && <span className="muted">v{module.version}</span>}{" "}
          {module.active ? <Badge tone="good">active</Badge> : <Badge>inactive</Badge>}
          {module.quarantined && <Badge tone="bad">quarantined</Badge>}
          {module.missing && <Badge tone="bad">missing</Badge>}
          <p className="muted">{module.description}</p>
        </div>
        <Switch
          checked={module.enabled}
          label={`Module ${module.id} enabled`}
          disabled={enable.busy}
          onChange={(next) => void enable.run(next)}
        />
        <button
          type="button"
          className="button small"
          aria-expanded={expanded}
          aria-controls={panelId}
          onClick={onToggle}
        >
          {expanded ? "Close" : "Settings"}
        </button>
      </div>
      {enable.busy && <Progress label={module.enabled ? "Stopping the module" : "Starting the module"} />}
      <ErrorBox error={enable.error} title="The module was not switched" />
      {module.error && (
        <div className="error-box" role="alert">
          <strong>Module error</strong>
          <p>{module.error}</p>
        </div>
      )}
      {expanded && (
        <div id={panelId}>
          <ModuleSettings module={module} onChanged={onChanged} />
        </div>
      )}
    </li>
  );
}

function ModuleSettings({ module, onChanged }: { module: ModuleRecord; onChanged(): void }) {
  const detail = useLoad(() => unwrap(api.GET("/modules/{id}", { params: { path: { id: module.id } } })), [module.id]);
  const [url, setUrl] = useState("");
  const [version, setVersion] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const update = useAction(async (how: "registry" | "url") => {
    setResult(null);
    const answer =
      how === "registry"
        ? await unwrap(
            api.POST("/modules/{id}/update", {
              params: { path: { id: module.id } },
              body: version.trim() ? { version: version.trim() } : {},
            }),
          )
        : await unwrap(api.PATCH("/modules/{id}", { params: { path: { id: module.id } }, body: { url: url.trim() } }));
    setResult(answer.updated ? `Updated to ${answer.toVersion ?? "the new files"}.` : "Already up to date.");
    onChanged();
  });
  const remove = useAction(async () => {
    await unwrap(api.DELETE("/modules/{id}", { params: { path: { id: module.id } } }));
    onChanged();
  });
  if (detail.loading && !detail.data) return <Loading what="Loading the module" />;
  if (!detail.data) return <ErrorBox error={detail.error} title="Could not load the module" />;
  return (
    <div className="stack">
      <div className="two-columns">
        <ConfigSection owner="modules" id={module.id} schema={detail.data.configSchema} onSaved={onChanged} />
        <SecretsSection owner="modules" id={module.id} schema={detail.data.secretsSchema} onSaved={onChanged} />
      </div>
      {!module.builtin && (
        <section className="card" aria-label={`Update ${module.id}`}>
          <h3>Update</h3>
          {module.source && (
            <form
              className="row"
              onSubmit={(event) => {
                event.preventDefault();
                void update.run("registry");
              }}
            >
              <label className="grow">
                <span>
                  Registry version <span className="muted">(empty for the latest)</span>
                </span>
                <input
                  value={version}
                  onChange={(event) => setVersion(event.target.value)}
                  placeholder={module.version ?? ""}
                />
              </label>
              <button type="submit" className="button" disabled={update.busy}>
                Update from registry
              </button>
            </form>
          )}
          <form
            className="row"
            onSubmit={(event) => {
              event.preventDefault();
              void update.run("url");
            }}
          >
            <label className="grow">
              Archive URL (.tgz)
              <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
            </label>
            <button type="submit" className="button" disabled={update.busy}>
              Update from URL
            </button>
          </form>
          {update.busy && <Progress label="Downloading and loading the new version" />}
          <ErrorBox error={update.error} title="The module was not updated" />
          {result && !update.error && (
            <p className="success" role="status">
              {result}
            </p>
          )}
          <button type="button" className="button danger" disabled={remove.busy} onClick={() => void remove.run()}>
            Delete module
          </button>
          <ErrorBox error={remove.error} title="The module was not deleted" />
        </section>
      )}
    </div>
  );
}
