#!/usr/bin/env node
// Serves a registry folder (public/ by default) as plain static files with
// node:http: GET and HEAD only, no directory listings, nothing outside the
// folder. Any static file server does the same job; this one has no
// dependencies and starts on a random port for tests.
//
//   node serve.mjs [port]            (default 4020; 0 picks a free port)
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const CONTENT_TYPES = {
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".tgz": "application/gzip",
};

/**
 * Starts serving `root`; resolves with the base URL (no trailing slash) and
 * a `close` function.
 * @param {{ root?: string, port?: number, host?: string }} [options]
 */
export function serveRegistry({ root = join(import.meta.dirname, "public"), port = 0, host = "127.0.0.1" } = {}) {
  const base = resolve(root);
  const server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    const file = fileFor(base, req.url ?? "/");
    const stat = file === null ? null : statSync(file, { throwIfNoEntry: false });
    if (file === null || !stat?.isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
      "content-length": stat.size,
      "cache-control": "no-cache",
    });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolveStart, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = /** @type {import("node:net").AddressInfo} */ (server.address());
      resolveStart({
        url: `http://${host}:${address.port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The file a request path names inside `base`, or null for anything that escapes it or cannot be decoded. */
function fileFor(base, rawUrl) {
  let path;
  try {
    path = decodeURIComponent(new URL(rawUrl, "http://registry").pathname);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  const file = resolve(base, `.${path}`);
  return file.startsWith(base + sep) ? file : null;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.argv[2] ?? 4020);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`usage: node serve.mjs [port]  (got "${process.argv[2]}")`);
    process.exit(2);
  }
  const { url } = await serveRegistry({ port });
  console.log(`cyrnel example registry on ${url} (add it with POST /registries {"url": "${url}"})`);
}
