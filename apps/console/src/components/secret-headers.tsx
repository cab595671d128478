/**
 * A service's secret headers and query parameters: secrets the host keeps by name as `header:<Name>` and
 * `query:<name>` for any service, whatever its adapter's schema, and the adapter sends on every request in place of
 * a header or parameter of that name (an API whose description declares no security, GitHub's, gets its token this
 * way). Write-only like every secret: the host answers their names, so the list shows names and the value input
 * always starts empty. Setting a name again replaces its value; the host checks names and values (a 400 names the
 * problem and stores nothing).
 */
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { useAction } from "../hooks/use-action";
import { useLoad } from "../hooks/use-load";
import { ErrorBox } from "./error-box";
import { Loading } from "./loading";

/** The host's reserved prefixes of secret names, and what each is called here. */
export const SECRET_KINDS = [
  { prefix: "header:", label: "Header" },
  { prefix: "query:", label: "Query parameter" },
] as const;
type Prefix = (typeof SECRET_KINDS)[number]["prefix"];

/** Whether a secret name is one of these (the service's other secrets list leaves them out). */
export const isSecretHeaderOrQuery = (name: string) => SECRET_KINDS.some(({ prefix }) => name.startsWith(prefix));

export function SecretHeadersSection({ id, onSaved }: { id: string; onSaved?(): void }) {
  const secrets = useLoad(() => unwrap(api.GET("/services/{id}/secrets", { params: { path: { id } } })), [id]);
  const [prefix, setPrefix] = useState<Prefix>("header:");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const patch = useAction(async (body: Record<string, string | null>, said: string) => {
    setDone(null);
    await unwrap(api.PATCH("/services/{id}/secrets", { params: { path: { id } }, body }));
    await secrets.reload(true);
    setDone(said);
    onSaved?.();
  });
  const set = (secrets.data?.set ?? []).filter(isSecretHeaderOrQuery);
  const kindOf = (secret: string) => SECRET_KINDS.find(({ prefix: p }) => secret.startsWith(p))!;

  return (
    <section className="card" aria-labelledby="secret-headers-title">
      <h2 id="secret-headers-title">Secret headers and query parameters</h2>
      <p className="muted">
        Sent on every request of the service in place of a header or parameter of the same name, for an API whose
        description declares no way to authenticate — e.g. header <code>Authorization</code> = <code>token ghp_…</code>{" "}
        or <code>Bearer …</code>. Write-only: values are encrypted by the host and never shown again.
      </p>
      {secrets.loading && !secrets.data && <Loading what="Loading secret names" />}
      <ErrorBox error={secrets.error} title="Could not load the secret names" />
      {secrets.data &&
        (set.length === 0 ? (
          <p className="muted">None set.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Secret headers and query parameters that are set</caption>
              <thead>
                <tr>
                  <th scope="col">Sent as</th>
                  <th scope="col">Name</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {set.map((secret) => {
                  const kind = kindOf(secret);
                  const shown = secret.slice(kind.prefix.length);
                  return (
                    <tr key={secret}>
                      <td>{kind.label}</td>
                      <td>
                        <code>{shown}</code>
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button small danger"
                          disabled={patch.busy}
                          aria-label={`Remove ${kind.label.toLowerCase()} ${shown}`}
                          onClick={() =>
                            void patch.run({ [secret]: null }, `Removed ${kind.label.toLowerCase()} ${shown}.`)
                          }
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          const trimmed = name.trim();
          if (trimmed === "") return;
          const label = SECRET_KINDS.find((kind) => kind.prefix === prefix)!.label.toLowerCase();
          void patch.run({ [`${prefix}${trimmed}`]: value }, `Set ${label} ${trimmed}.`);
          // The value leaves the page's state at once, whatever the host answers.
          setValue("");
        }}
      >
        <label>
          Sent as
          <select value={prefix} onChange={(event) => setPrefix(event.target.value as Prefix)}>
            {SECRET_KINDS.map((kind) => (
              <option key={kind.prefix} value={kind.prefix}>
                {kind.label}
              </option>
            ))}
          </select>
        </label>
        <label className="grow">
          Header or parameter name
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder={prefix === "header:" ? "Authorization" : "api_key"}
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className="grow">
          Secret value
          <input
            type="password"
            value={value}
            onChange={(event) => setValue(event.target.value)}
            placeholder="set or replace the value"
            autoComplete="new-password"
          />
        </label>
        <button type="submit" className="button primary" disabled={patch.busy || name.trim() === ""}>
          {patch.busy ? "Saving…" : "Set"}
        </button>
      </form>
      <ErrorBox error={patch.error} title="The secret was not saved" />
      {done && !patch.error && (
        <p className="success" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
