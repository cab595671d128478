/**
 * Config and secrets of a service or a module, as forms generated from the schemas its adapter or module declares.
 * Config is sent as a JSON merge patch of what changed (a field cleared in the form is removed); secrets only as
 * the fields typed in, and are never shown: the host answers their names only.
 */
import { lazy, Suspense, useState } from "react";
import { api, unwrap } from "../api/client";
import { hasFields } from "../forms/schema-fields";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { Badge } from "./badge";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";
import { isSecretHeaderOrQuery } from "./secret-headers";

// rjsf and its validator are a third of the console's script: fetched when a form first shows, not at sign-in.
const ConfigForm = lazy(() => import("./schema-form").then((module) => ({ default: module.ConfigForm })));
const SecretsForm = lazy(() => import("./schema-form").then((module) => ({ default: module.SecretsForm })));
const loadingForm = <Loading what="Loading the form" />;

type Json = Record<string, unknown>;
export type Owner = "services" | "modules";

const settingsApi = {
  getConfig: (owner: Owner, id: string) =>
    owner === "services"
      ? unwrap(api.GET("/services/{id}/config", { params: { path: { id } } }))
      : unwrap(api.GET("/modules/{id}/config", { params: { path: { id } } })),
  patchConfig: (owner: Owner, id: string, body: Json) =>
    owner === "services"
      ? unwrap(api.PATCH("/services/{id}/config", { params: { path: { id } }, body }))
      : unwrap(api.PATCH("/modules/{id}/config", { params: { path: { id } }, body })),
  getSecrets: (owner: Owner, id: string) =>
    owner === "services"
      ? unwrap(api.GET("/services/{id}/secrets", { params: { path: { id } } }))
      : unwrap(api.GET("/modules/{id}/secrets", { params: { path: { id } } })),
  patchSecrets: (owner: Owner, id: string, body: Json) =>
    owner === "services"
      ? unwrap(api.PATCH("/services/{id}/secrets", { params: { path: { id } }, body }))
      : unwrap(api.PATCH("/modules/{id}/secrets", { params: { path: { id } }, body })),
};

/** The merge patch from `before` to `after` at the top level: changed keys, and null for removed ones. */
function mergePatch(before: Json, after: Json): Json {
  const patch: Json = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(before[key]) !== JSON.stringify(value)) patch[key] = value;
  }
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
  return patch;
}

export function ConfigSection({
  owner,
  id,
  schema,
  onSaved,
}: {
  owner: Owner;
  id: string;
  schema: Json;
  onSaved?(): void;
}) {
  const config = useLoad(() => settingsApi.getConfig(owner, id), [owner, id]);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (next: Json) => {
    setSaved(false);
    await settingsApi.patchConfig(owner, id, mergePatch(config.data?.config ?? {}, next));
    await config.reload(true);
    setSaved(true);
    onSaved?.();
  });
  return (
    <section className="card" aria-labelledby={`${owner}-config-title`}>
      <h2 id={`${owner}-config-title`}>Configuration</h2>
      {!hasFields(schema) ? (
        <p className="muted">No configuration: the schema has no fields.</p>
      ) : (
        <>
          {config.loading && !config.data && <Loading what="Loading the configuration" />}
          <ErrorBox error={config.error} title="Could not load the configuration" />
          {config.data && (
            <Suspense fallback={loadingForm}>
              <ConfigForm
                key={JSON.stringify(config.data.config)}
                idPrefix={`${owner}-config`}
                schema={schema}
                value={config.data.config}
                busy={save.busy}
                onSubmit={(next) => void save.run(next)}
              />
            </Suspense>
          )}
          <ErrorBox error={save.error} title="The configuration was not saved" />
          {saved && !save.error && (
            <p className="success" role="status">
              Configuration saved.
            </p>
          )}
        </>
      )}
    </section>
  );
}

export function SecretsSection({
  owner,
  id,
  schema,
  onSaved,
}: {
  owner: Owner;
  id: string;
  schema: Json;
  onSaved?(): void;
}) {
  const secrets = useLoad(() => settingsApi.getSecrets(owner, id), [owner, id]);
  const [saved, setSaved] = useState<string[] | null>(null);
  const save = useAction(async (values: Json) => {
    setSaved(null);
    const result = await settingsApi.patchSecrets(owner, id, values);
    await secrets.reload(true);
    setSaved(Object.keys(values));
    onSaved?.();
    return result;
  });
  // A service's secret headers and query parameters have a section of their own (secret-headers.tsx).
  const names = (secrets.data?.set ?? []).filter((name) => owner !== "services" || !isSecretHeaderOrQuery(name));
  return (
    <section className="card" aria-labelledby={`${owner}-secrets-title`}>
      <h2 id={`${owner}-secrets-title`}>Secrets</h2>
      {!hasFields(schema) ? (
        <p className="muted">No secrets: the schema has no fields.</p>
      ) : (
        <>
          <p className="muted">
            Write-only: values are encrypted by the host and never shown again. Set:{" "}
            {names.length === 0 ? (
              <span>none</span>
            ) : (
              names.map((name) => (
                <Badge key={name} tone="good">
                  {name}
                </Badge>
              ))
            )}
          </p>
          {secrets.loading && !secrets.data && <Loading what="Loading secret names" />}
          <ErrorBox error={secrets.error} title="Could not load the secret names" />
          {secrets.data && (
            <Suspense fallback={loadingForm}>
              <SecretsForm
                idPrefix={`${owner}-secrets`}
                schema={schema}
                setNames={names}
                busy={save.busy}
                onSubmit={(values) => {
                  if (Object.keys(values).length > 0) void save.run(values);
                }}
              />
            </Suspense>
          )}
          <ErrorBox error={save.error} title="The secrets were not saved" />
          {saved && !save.error && (
            <p className="success" role="status">
              Saved: {saved.join(", ")}.
            </p>
          )}
        </>
      )}
    </section>
  );
}
