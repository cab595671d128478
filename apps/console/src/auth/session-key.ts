/**
 * The operator's admin key, kept in sessionStorage: it lives as long as the tab, is never written to a cookie or a
 * URL, and is sent only as the bearer header of API calls (api/client.ts).
 */
const STORAGE_KEY = "cyrnel.apiKey";

type Listener = (key: string | null) => void;
const listeners = new Set<Listener>();

export function readKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, key);
  for (const listener of listeners) listener(key);
}

export function onKeyChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
