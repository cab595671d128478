/**
 * Installing a service: from a URL the host downloads, from a file read here and sent as the definition text, or
 * from a registry's catalogue. One request does the download and the tool generation, so progress is shown as an
 * indeterminate bar with the elapsed time; the host's error (code and message) is shown as it answered.
 */
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import type { InstalledService } from "../api/types";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";
import { Progress } from "./progress";

type Source = "url" | "upload" | "registry";

export function InstallServiceDialog({
  open,
  onClose,
  onInstalled,
}: {
  open: boolean;
  onClose(): void;
  onInstalled(id: string, service: InstalledService): void;
}) {
  return (
    <Dialog open={open} title="Install a service" onClose={onClose} wide>
      <InstallForm onInstalled={onInstalled} onCancel={onClose} />
    </Dialog>
  );
}

function InstallForm({
  onInstalled,
  onCancel,
}: {
  onInstalled(id: string, service: InstalledService): void;
  onCancel(): void;
}) {
  const [source, setSource] = useState<Source>("url");
  const [id, setId] = useState("");
  const [adapter, setAdapter] = useState("openapi");
  const [url, setUrl] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [registry, setRegistry] = useState("");
  const [search, setSearch] = useState("");
  const [item, setItem] = useState("");
  const [version, setVersion] = useState("");

  const adapters = useLoad(
    async () => (await unwrap(api.GET("/modules", { params: { query: { type: "adapter" } } }))).items,
    [],
  );
  const registries = useLoad(
    async () => (await unwrap(api.GET("/registries", { params: { query: { limit: 1000 } } }))).items,
    [],
  );
  const definitions = useLoad(
    async () =>
      registry === ""
        ? []
        : (
            await unwrap(
              api.GET("/registries/{id}/definitions", {
                params: {
                  path: { id: registry },
                  query: { limit: 100, ...(search.trim() && { query: search.trim() }) },
                },
              }),
            )
          ).items,
    [registry, search],
  );

  const install = useAction(async () => {
    let result: InstalledService;
    if (source === "registry") {
      result = await unwrap(
        api.POST("/services/install", {
          body: {
            source: item,
            ...(id.trim() && { id: id.trim() }),
            ...(version.trim() && { version: version.trim() }),
            adapter,
          },
        }),
      );
    } else {
      const definition = source === "upload" && file ? await file.text() : undefined;
      result = await unwrap(
        api.POST("/services", {
          body: { id: id.trim(), adapter, ...(source === "url" ? { url: url.trim() } : { definition }) },
        }),
      );
    }
    onInstalled(result.id, result);
  });

  const ready =
    source === "registry" ? item !== "" : id.trim() !== "" && (source === "url" ? url.trim() !== "" : file !== null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready && !install.busy) void install.run();
  };

  return (
    <form onSubmit={submit} className="stack">
      <fieldset className="segmented">
        <legend>Source</legend>
        {(
          [
            ["url", "From a URL"],
            ["upload", "Upload a file"],
            ["registry", "From a registry"],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className={source === value ? "selected" : undefined}>
            <input
              type="radio"
              name="source"
              value={value}
              checked={source === value}
              onChange={() => setSource(value)}
            />
            {label}
          </label>
        ))}
      </fieldset>

      {source === "url" && (
        <label>
          Definition URL
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            placeholder="http://127.0.0.1:4010/openapi.json"
            required
          />
          <span className="hint">The host downloads it (http or https).</span>
        </label>
      )}
      {source === "upload" && (
        <label>
          Definition file
          <input
            type="file"
            accept=".json,.yaml,.yml,application/json,application/yaml"
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
            required
          />
          <span className="hint">An OpenAPI or Swagger document, JSON or YAML. It is sent to the host as text.</span>
        </label>
      )}
      {source === "registry" && (
        <>
          <ErrorBox error={registries.error} title="Could not list registries" />
          {registries.data && registries.data.length === 0 && (
            <p className="muted">No registry is added yet: add one on the Registries page.</p>
          )}
          <label>
            Registry
            <select
              value={registry}
              onChange={(event) => {
                setRegistry(event.target.value);
                setItem("");
              }}
            >
              <option value="">Choose a registry</option>
              {(registries.data ?? []).map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} ({r.id})
                </option>
              ))}
            </select>
          </label>
          {registry !== "" && (
            <>
              <label>
                Search the catalogue
                <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
              </label>
              <ErrorBox error={definitions.error} title="Could not read the registry" />
              <label>
                Definition
                <select value={item} onChange={(event) => setItem(event.target.value)} required>
                  <option value="">{definitions.loading ? "Loading…" : "Choose a definition"}</option>
                  {(definitions.data ?? []).map((d) => (
                    <option key={d.source} value={d.source}>
                      {d.name} — {d.description}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <span>
                  Version <span className="muted">(optional: exact or a range; default the latest)</span>
                </span>
                <input value={version} onChange={(event) => setVersion(event.target.value)} placeholder="^1.0.0" />
              </label>
            </>
          )}
        </>
      )}

      <div className="row">
        <label className="grow">
          <span>
            Service id{source === "registry" && <span className="muted"> (optional: the registry's id)</span>}
          </span>
          <input
            value={id}
            onChange={(event) => setId(event.target.value)}
            placeholder="weather"
            pattern="[A-Za-z_$][A-Za-z0-9_$]*"
            title="A TypeScript identifier: letters, digits, _ and $, not starting with a digit"
            required={source !== "registry"}
            spellCheck={false}
          />
          <span className="hint">What code writes: cyrnel.services.&lt;id&gt;</span>
        </label>
        <label>
          Adapter
          <select value={adapter} onChange={(event) => setAdapter(event.target.value)}>
            {(adapters.data ?? [{ id: "openapi", name: "openapi" }]).map((a) => (
              <option key={a.id} value={a.id}>
                {a.id}
              </option>
            ))}
          </select>
        </label>
      </div>

      {install.busy && <Progress label="Downloading the definition and generating its tools" />}
      <ErrorBox error={install.error} title="The service was not installed" />

      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} disabled={install.busy}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={!ready || install.busy}>
          {install.busy ? "Installing…" : "Install"}
        </button>
      </div>
    </form>
  );
}
