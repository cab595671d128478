/**
 * Who made a process, an approval or a call, by name: a stored key's name (its id in the tooltip), `oauth:<sub>`
 * as it is, and the bootstrap key (`CYRNEL_API_KEY`, no id). Key names are read once per page load (the key list is
 * the admin's; an agent session, refused it, sees ids).
 */
import { api, unwrap } from "../api/client";
import { useLoad } from "../hooks/use-load";

let names: Promise<Map<string, string>> | null = null;

/** Every stored key's name by id, read once (all pages) and shared by every caller shown. */
export function keyNames(): Promise<Map<string, string>> {
  names ??= (async () => {
    const found = new Map<string, string>();
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await unwrap(api.GET("/keys", { params: { query: { limit: 1000, ...(cursor && { cursor }) } } }));
      for (const key of answer.items) found.set(key.id, key.name);
      if (answer.nextCursor === null) break;
      cursor = answer.nextCursor;
    }
    return found;
  })().catch(() => new Map<string, string>());
  return names;
}

/** Forgets the names read (a key was created or renamed). */
export function forgetKeyNames(): void {
  names = null;
}

export function CallerName({ keyId }: { keyId: string | null }) {
  const known = useLoad(keyNames, []);
  if (keyId === null) return <span className="muted">bootstrap</span>;
  const name = known.data?.get(keyId);
  return name === undefined ? <code>{keyId}</code> : <span title={keyId}>{name}</span>;
}
