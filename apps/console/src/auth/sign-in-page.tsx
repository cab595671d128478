/**
 * Sign-in with an admin key. The key is checked against an admin-only route before it is kept, so a wrong key or an
 * agent key is refused here with the host's own words rather than on the first page.
 */
import { type FormEvent, useState } from "react";
import { ApiError } from "../api/api-error";
import { SIGNED_OUT_NOTICE } from "../api/client";
import { storeKey } from "./session-key";

async function checkKey(key: string): Promise<void> {
  const response = await fetch("/keys?limit=1", { headers: { authorization: `Bearer ${key}` } });
  if (response.ok) return;
  const body = (await response.json().catch(() => null)) as { code?: string; error?: string } | null;
  if (response.status === 401)
    throw new ApiError(401, "unauthorized", "The host does not accept this key. Check it and try again.");
  if (response.status === 403) {
    throw new ApiError(403, "forbidden", "This is an agent key. The console needs an admin key (or CYRNEL_API_KEY).");
  }
  throw new ApiError(response.status, body?.code ?? `http_${response.status}`, body?.error ?? response.statusText);
}

export function SignInPage() {
  const [key, setKey] = useState("");
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice] = useState(() => {
    const text = sessionStorage.getItem(SIGNED_OUT_NOTICE);
    sessionStorage.removeItem(SIGNED_OUT_NOTICE);
    return text;
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkKey(key.trim());
      storeKey(key.trim());
    } catch (caught) {
      setError(
        caught instanceof ApiError
          ? caught
          : new ApiError(0, "network_error", `The host could not be reached: ${String(caught)}`),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} aria-describedby="sign-in-help">
        <h1>
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>{" "}
          cyrnel console
        </h1>
        <p id="sign-in-help" className="muted">
          Sign in with an admin key: <code>CYRNEL_API_KEY</code> or a stored admin key. It is kept in this tab only and
          sent as the bearer header of each API call.
        </p>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <label htmlFor="api-key">Admin key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          required
          aria-invalid={error !== null}
          aria-describedby={error ? "sign-in-error" : undefined}
        />
        {error && (
          <div id="sign-in-error" className="error-box" role="alert">
            <strong>Sign-in failed</strong>
            <code className="error-code">{error.code}</code>
            <p>{error.message}</p>
          </div>
        )}
        <button type="submit" className="button primary" disabled={busy || key.trim() === ""}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
