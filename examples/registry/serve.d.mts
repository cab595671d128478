export function serveRegistry(options?: { root?: string; port?: number; host?: string }): Promise<{
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}>;
