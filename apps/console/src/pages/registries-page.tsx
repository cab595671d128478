/** Registries: adding and removing catalogues, browsing their definitions and modules, installing from them. */
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import type { IndexItem, RegistryRecord } from "../api/types";
import { Dialog } from "../components/dialog";
import { ErrorBox } from "../components/error-box";
import { Loading } from "../components/loading";
import { PageHeader } from "../components/page-header";
import { Progress } from "../components/progress";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { navigate, segment } from "../router/router";

export function RegistriesPage() {
  const registries = useLoad(() => unwrap(api.GET("/registries", { params: { query: { limit: 1000 } } })), []);
  const [selected, setSelected] = useState<string | null>(null);
  const [removing, setRemoving] = useState<RegistryRecord | null>(null);
  const current = registries.data?.items.find((r) => r.id === selected) ?? registries.data?.items[0] ?? null;
  return (
    <>
      <PageHeader title="Registries" />
      <AddRegistryForm
        onAdded={(id) => {
          setSelected(id);
          void registries.reload(true);
        }}
      />
      <ErrorBox error={registries.error} title="Could not list registries" />
      {registries.loading && !registries.data && <Loading what="Loading registries" />}
      {registries.data && registries.data.items.length === 0 && <p className="empty">No registry added yet.</p>}
      {registries.data && registries.data.items.length > 0 && (
        <>
          <div className="tabs">
            {registries.data.items.map((registry) => (
              <button
                type="button"
                key={registry.id}
                className={registry.id === current?.id ? "tab selected" : "tab"}
                aria-pressed={registry.id === current?.id}
                onClick={() => setSelected(registry.id)}
              >
                {registry.name}
              </button>
            ))}
          </div>
          {current && (
            <section className="card" aria-label={`Registry ${current.name}`}>
              <header className="section-head">
                <div>
                  <h2>{current.name}</h2>
                  <p className="muted">
                    <code>{current.id}</code> · {current.url}
                  </p>
                </div>
                <button type="button" className="button small danger" onClick={() => setRemoving(current)}>
                  Remove
                </button>
              </header>
              <Catalogue key={current.id} registry={current} />
            </section>
          )}
        </>
      )}
      <Dialog open={removing !== null} title={`Remove ${removing?.name ?? ""}?`} onClose={() => setRemoving(null)}>
        <RemoveRegistry
          registry={removing}
          onDone={() => {
            setRemoving(null);
            setSelected(null);
            void registries.reload(true);
          }}
          onCancel={() => setRemoving(null)}
        />
      </Dialog>
    </>
  );
}

function AddRegistryForm({ onAdded }: { onAdded(id: string): void }) {
  const [url, setUrl] = useState("");
  const [id, setId] = useState("");
  const add = useAction(async () => {
    const registry = await unwrap(
      api.POST("/registries", { body: { url: url.trim(), ...(id.trim() && { id: id.trim() }) } }),
    );
    setUrl("");
    setId("");
    onAdded(registry.id);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void add.run();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="add-registry-title">
      <h2 id="add-registry-title">Add a registry</h2>
      <div className="row">
        <label className="grow">
          Base URL
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            required
            placeholder="http://127.0.0.1:4020/"
          />
        </label>
        <label>
          <span>
            Id <span className="muted">(optional)</span>
          </span>
          <input value={id} onChange={(event) => setId(event.target.value)} />
        </label>
      </div>
      {add.busy && <Progress label="Reading the registry" />}
      <ErrorBox error={add.error} title="The registry was not added" />
      <div>
        <button type="submit" className="button primary" disabled={add.busy || url.trim() === ""}>
          Add registry
        </button>
      </div>
    </form>
  );
}

function RemoveRegistry({
  registry,
  onDone,
  onCancel,
}: {
  registry: RegistryRecord | null;
  onDone(): void;
  onCancel(): void;
}) {
  const remove = useAction(async () => {
    if (registry) await unwrap(api.DELETE("/registries/{id}", { params: { path: { id: registry.id } } }));
    onDone();
  });
  return (
    <>
      <p>Services and modules installed from it stay installed; they cannot be updated from it any more.</p>
      <ErrorBox error={remove.error} title="The registry was not removed" />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={remove.busy} onClick={() => void remove.run()}>
          Remove
        </button>
      </div>
    </>
  );
}

function Catalogue({ registry }: { registry: RegistryRecord }) {
  const [kind, setKind] = useState<"definitions" | "modules">("definitions");
  const [query, setQuery] = useState("");
  const items = useLoad(async () => {
    const params = { path: { id: registry.id }, query: { limit: 100, ...(query.trim() && { query: query.trim() }) } };
    const page =
      kind === "definitions"
        ? await unwrap(api.GET("/registries/{id}/definitions", { params }))
        : await unwrap(api.GET("/registries/{id}/modules", { params }));
    return page.items;
  }, [registry.id, kind, query]);
  return (
    <div className="stack">
      <div className="filters">
        <fieldset className="segmented">
          <legend className="visually-hidden">Catalogue</legend>
          {(["definitions", "modules"] as const).map((value) => (
            <label key={value} className={kind === value ? "selected" : undefined}>
              <input
                type="radio"
                name={`kind-${registry.id}`}
                checked={kind === value}
                onChange={() => setKind(value)}
              />
              {value === "definitions" ? "Service definitions" : "Modules"}
            </label>
          ))}
        </fieldset>
        <label className="grow">
          Search
          <input type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
        </label>
      </div>
      <ErrorBox error={items.error} title="Could not read the registry" />
      {items.loading && !items.data && <Loading what="Reading the catalogue" />}
      {items.data && items.data.length === 0 && <p className="empty">Nothing here.</p>}
      <ul className="catalogue">
        {items.data?.map((item) => (
          <CatalogueItem key={item.source} item={item} kind={kind} />
        ))}
      </ul>
    </div>
  );
}

function CatalogueItem({ item, kind }: { item: IndexItem; kind: "definitions" | "modules" }) {
  const [version, setVersion] = useState("");
  const install = useAction(async () => {
    const chosen = version.trim() ? { version: version.trim() } : {};
    if (kind === "definitions") {
      const service = await unwrap(api.POST("/services/install", { body: { source: item.source, ...chosen } }));
      navigate(`/services/${segment(service.id)}?installed=1`);
    } else {
      await unwrap(api.POST("/modules/install", { body: { source: item.source, ...chosen } }));
      navigate("/modules");
    }
  });
  return (
    <li className="catalogue-item">
      <div className="grow">
        <strong>{item.name}</strong> <code className="muted">{item.id}</code>
        {item.kind && <span className="muted"> · {item.kind}</span>}
        <p className="muted">{item.description}</p>
        {install.busy && (
          <Progress label={kind === "definitions" ? "Installing the service" : "Installing the module"} />
        )}
        <ErrorBox error={install.error} title={`${item.name} was not installed`} />
      </div>
      <form
        className="row install-row"
        onSubmit={(event) => {
          event.preventDefault();
          void install.run();
        }}
      >
        <label>
          <span className="visually-hidden">Version of {item.name}</span>
          <input value={version} onChange={(event) => setVersion(event.target.value)} placeholder="latest" size={8} />
        </label>
        <button type="submit" className="button" disabled={install.busy} aria-label={`Install ${item.name}`}>
          Install
        </button>
      </form>
    </li>
  );
}
