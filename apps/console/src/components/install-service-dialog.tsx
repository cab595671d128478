/**
 * Installing a service. The adapter comes first, since what a definition is depends on it: an OpenAPI document
 * from a URL the host downloads, a file read here and sent as the definition text, or a registry's catalogue; a
 * gRPC service from `.proto` files or a server's reflection; an MCP server by its Streamable HTTP URL or the
 * command that starts it (forms/definitions.ts builds each definition). One request does the download and the tool
 * generation, so progress is shown as an indeterminate bar with the elapsed time; the host's error (code and
 * message) is shown as it answered.
 *
 * Closing the dialog would not stop the request (the host installs it either way) and would hide how it ended, so
 * while it runs Escape, × and Cancel keep the dialog open and say why.
 */
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import type { InstalledService } from "../api/types";
import {
  mcpHttpDefinition,
  mcpStdioDefinition,
  protosDefinition,
  reflectionDefinition,
  type Source,
  sourcesOf,
} from "../forms/definitions";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Dialog } from "./dialog";
import { ErrorBox } from "./error-box";
import { Progress } from "./progress";

export function InstallServiceDialog({
  open,
  onClose,
  onInstalled,
}: {
  open: boolean;
  onClose(): void;
  onInstalled(id: string, service: InstalledService): void;
}) {
  const [busy, setBusy] = useState(false);
  const [heldOpen, setHeldOpen] = useState(false);
  const close = () => {
    if (busy) setHeldOpen(true);
    else onClose();
  };
  return (
    <Dialog open={open} title="Install a service" onClose={close} wide>
      <InstallForm
        onInstalled={onInstalled}
        onCancel={close}
        onBusy={(next) => {
          setBusy(next);
          if (!next) setHeldOpen(false);
        }}
        heldOpen={heldOpen}
      />
    </Dialog>
  );
}

function InstallForm({
  onInstalled,
  onCancel,
  onBusy,
  heldOpen,
}: {
  onInstalled(id: string, service: InstalledService): void;
  onCancel(): void;
  onBusy(busy: boolean): void;
  /** Whether the operator tried to close the dialog while the install ran. */
  heldOpen: boolean;
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
  const [protoFiles, setProtoFiles] = useState<File[]>([]);
  const [target, setTarget] = useState("");
  const [tls, setTls] = useState(false);
  const [command, setCommand] = useState("");
  const [args, setArgs] = useState("");
  const [env, setEnv] = useState("");
  const sources = sourcesOf(adapter);
  const chooseAdapter = (next: string) => {
    setAdapter(next);
    setSource(sourcesOf(next)[0]![0]);
  };

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
    onBusy(true);
    try {
      onInstalled(...(await installed()));
    } finally {
      onBusy(false);
    }
  });

  const installed = async (): Promise<[string, InstalledService]> => {
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
      const definition = await definitionText();
      result = await unwrap(
        api.POST("/services", {
          body: { id: id.trim(), adapter, ...(definition === null ? { url: url.trim() } : { definition }) },
        }),
      );
    }
    return [result.id, result];
  };

  /** The definition text for the chosen source, or null when the host downloads it from `url`. */
  const definitionText = async (): Promise<string | null> => {
    switch (source) {
      case "upload":
        return file ? file.text() : "";
      case "protos":
        return protosDefinition(
          await Promise.all(
            protoFiles.map(async (proto) => ({
              path: proto.webkitRelativePath || proto.name,
              text: await proto.text(),
            })),
          ),
          target,
        );
      case "reflection":
        return reflectionDefinition(target, tls);
      case "mcp-http":
        return mcpHttpDefinition(url);
      case "mcp-stdio":
        return mcpStdioDefinition(command, args, env);
      default:
        return null;
    }
  };

  const sourceReady: Record<Source, boolean> = {
    url: url.trim() !== "",
    upload: file !== null,
    registry: item !== "",
    protos: protoFiles.length > 0,
    reflection: target.trim() !== "",
    "mcp-http": url.trim() !== "",
    "mcp-stdio": command.trim() !== "",
  };
  const ready = source === "registry" ? sourceReady.registry : id.trim() !== "" && sourceReady[source];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready && !install.busy) void install.run();
  };

  return (
    <form onSubmit={submit} className="stack">
      <label>
        Adapter
        <select value={adapter} onChange={(event) => chooseAdapter(event.target.value)}>
          {(adapters.data ?? [{ id: "openapi", name: "openapi" }]).map((a) => (
            <option key={a.id} value={a.id}>
              {a.id}
            </option>
          ))}
        </select>
      </label>

      <fieldset className="segmented">
        <legend>Source</legend>
        {sources.map(([value, label]) => (
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
      {source === "protos" && (
        <>
          <label>
            Proto files
            <input
              type="file"
              accept=".proto"
              multiple
              onChange={(event) => setProtoFiles([...(event.target.files ?? [])])}
              required
            />
            <span className="hint">
              Every file the services need; imports are resolved among them (the well-known google/protobuf types are
              built in). Sent to the host as text.
            </span>
          </label>
          <label>
            <span>
              Target <span className="muted">(optional: host:port; else set it in the service's config)</span>
            </span>
            <input value={target} onChange={(event) => setTarget(event.target.value)} placeholder="127.0.0.1:50051" />
          </label>
        </>
      )}
      {source === "reflection" && (
        <>
          <label>
            Server address
            <input
              value={target}
              onChange={(event) => setTarget(event.target.value)}
              placeholder="127.0.0.1:50051"
              required
            />
            <span className="hint">The host asks the server for its services (gRPC server reflection).</span>
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={tls} onChange={(event) => setTls(event.target.checked)} /> TLS
          </label>
        </>
      )}
      {source === "mcp-http" && (
        <label>
          Server URL
          <input
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            placeholder="http://127.0.0.1:3001/mcp"
            required
          />
          <span className="hint">A Streamable HTTP endpoint (the legacy HTTP+SSE transport is tried as well).</span>
        </label>
      )}
      {source === "mcp-stdio" && (
        <>
          <label>
            Command
            <input
              value={command}
              onChange={(event) => setCommand(event.target.value)}
              placeholder="npx"
              required
              spellCheck={false}
            />
            <span className="hint">Started by the host as its child; stopped with the service.</span>
          </label>
          <label>
            <span>
              Arguments <span className="muted">(one per line)</span>
            </span>
            <textarea
              value={args}
              onChange={(event) => setArgs(event.target.value)}
              rows={3}
              placeholder={"-y\n@modelcontextprotocol/server-everything"}
              spellCheck={false}
            />
          </label>
          <label>
            <span>
              Environment <span className="muted">(NAME=value, one per line)</span>
            </span>
            <textarea value={env} onChange={(event) => setEnv(event.target.value)} rows={2} spellCheck={false} />
            <span className="hint">
              The server gets only these variables and its secrets, never the host's environment.
            </span>
          </label>
        </>
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
      </div>

      {install.busy && <Progress label="Reading the definition and generating its tools" />}
      {install.busy && heldOpen && (
        <p className="notice" role="alert">
          The install is still running on the host, and closing this dialog would not stop it: it stays open until the
          install ends, to show how.
        </p>
      )}
      <ErrorBox error={install.error} title="The service was not installed" />

      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={!ready || install.busy}>
          {install.busy ? "Installing…" : "Install"}
        </button>
      </div>
    </form>
  );
}
