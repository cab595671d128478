/**
 * The operator web console (the build of `@cyrnel/console`) served at `/ui/`.
 *
 * Its files hold no data, so they are served without a key: every API call the
 * console makes carries the operator's key itself. They are mounted before the
 * auth middleware and are not API routes (`/openapi.json` does not list them).
 * Every answer carries a CSP that allows only this origin's own scripts, styles,
 * images and API: nothing inline, no eval, no other origin, no framing; and a
 * Permissions-Policy that denies every powerful feature the console never uses.
 *
 * Compression: the console's build writes a Brotli (`.br`) and a gzip (`.gz`)
 * copy beside each text file worth compressing (apps/console/vite.config.ts),
 * once, at build time, at the best ratio. The host picks one by the request's
 * Accept-Encoding (Brotli first) and sends it as is: no compression on the
 * request path, no CPU spent at start. A build without the copies is served
 * uncompressed. Compressible files always vary on Accept-Encoding, so a shared
 * cache never hands a Brotli body to a client that did not ask for it.
 */
import { statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join, sep } from "node:path";
import type { Context, Hono } from "hono";
import { CyrnelError } from "../errors.js";

export const CONSOLE_PATH = "/ui/";

/** `default-src 'none'` first, then only what the console uses; the API is same-origin (`connect-src 'self'`). */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The console needs none of these; denying them means a script that got in anyway (or a page it opened on this
 * origin) cannot ask for a camera, a location or a USB device. `clipboard-write` stays allowed: the keys page copies
 * a new key. Only features Chromium knows are listed: an unknown one is reported as an error in the console.
 */
export const CONSOLE_PERMISSIONS_POLICY = [
  "accelerometer=()",
  "autoplay=()",
  "bluetooth=()",
  "camera=()",
  "display-capture=()",
  "encrypted-media=()",
  "geolocation=()",
  "gyroscope=()",
  "hid=()",
  "idle-detection=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "publickey-credentials-get=()",
  "screen-wake-lock=()",
  "serial=()",
  "usb=()",
  "xr-spatial-tracking=()",
].join(", ");

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": CONSOLE_PERMISSIONS_POLICY,
};

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The types the build precompresses (the rest, images and fonts, are compressed already or tiny). */
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt"]);

/** The precompressed copies, in order of preference, by the file suffix the build gives them. */
const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

/** Vite names everything under assets/ by its content hash: a changed file has a new name, so it can be cached for good. */
const IMMUTABLE = "public, max-age=31536000, immutable";

export type ConsoleBuild = { dir: string } | { missing: string };

/**
 * Where the console's build is: `dist/` of the `@cyrnel/console` package the host depends on. The host starts without
 * it (a host installed without the console, or a console not built yet); `/ui/` then answers 404 saying so.
 */
export function findConsoleBuild(): ConsoleBuild {
  let packageJson: string;
  try {
    packageJson = createRequire(import.meta.url).resolve("@cyrnel/console/package.json");
  } catch {
    return { missing: "the @cyrnel/console package is not installed" };
  }
  const dir = join(dirname(packageJson), "dist");
  return consoleBuilt(dir) ? { dir } : { missing: `${dir} has no index.html (run pnpm build)` };
}

/** Checked once, at start; a console built later is served from the next start on. */
const consoleBuilt = (dir: string): boolean =>
  statSync(join(dir, "index.html"), { throwIfNoEntry: false })?.isFile() ?? false;

/** `GET`/`HEAD` `/ui` (redirect) and `/ui/*` (files, or index.html for the console's own routes). */
export function mountConsole(app: Hono, build: ConsoleBuild): void {
  app.on(["GET", "HEAD"], "/ui", (c) => {
    const query = new URL(c.req.url).search;
    return new Response(null, { status: 308, headers: { location: `${CONSOLE_PATH}${query}` } });
  });
  app.on(["GET", "HEAD"], "/ui/*", async (c) => {
    if ("missing" in build) {
      throw new CyrnelError("not_found", `the web console is not available: ${build.missing}`);
    }
    return serveFile(c, build.dir);
  });
}

async function serveFile(c: Context, root: string): Promise<Response> {
  const segments = relativeSegments(new URL(c.req.url).pathname);
  if (segments === null) throw new CyrnelError("bad_request", "invalid console path");
  const file = join(root, ...segments);
  // relativeSegments refuses `.` and `..`; this keeps the promise even if that ever changes.
  if (file !== root && !file.startsWith(root + sep)) throw new CyrnelError("bad_request", "invalid console path");

  const found = segments.length > 0 ? await regularFile(file) : false;
  if (found) {
    const immutable = segments[0] === "assets";
    return fileResponse(c, file, immutable ? IMMUTABLE : "no-cache");
  }
  // A missing asset or file-like name is a 404: answering index.html for it would hide a broken build behind a
  // confusing MIME error. Anything else is one of the console's own routes (/ui/services/weather), rendered by it.
  const last = segments.at(-1) ?? "";
  if (segments[0] === "assets" || extname(last) !== "") {
    throw new CyrnelError("not_found", `no console file /ui/${segments.join("/")}`);
  }
  return fileResponse(c, join(root, "index.html"), "no-cache");
}

/** The decoded path segments under /ui/, or null for a segment that could leave the folder or name nothing. */
function relativeSegments(pathname: string): string[] | null {
  const rest = pathname.slice(CONSOLE_PATH.length);
  const segments: string[] = [];
  for (const raw of rest.split("/")) {
    if (raw === "") continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === "." || segment === ".." || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

async function regularFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function fileResponse(c: Context, file: string, cacheControl: string): Promise<Response> {
  const headers = new Headers(SECURITY_HEADERS);
  const type = extname(file);
  headers.set("content-type", CONTENT_TYPES[type] ?? "application/octet-stream");
  headers.set("cache-control", cacheControl);
  let body: Buffer | undefined;
  if (COMPRESSIBLE.has(type)) {
    headers.set("vary", "accept-encoding");
    const accepted = acceptedEncodings(c.req.header("accept-encoding"));
    for (const encoding of ENCODINGS) {
      if (!accepted.has(encoding.name)) continue;
      body = await readFile(file + encoding.suffix).catch(() => undefined);
      if (body === undefined) continue;
      headers.set("content-encoding", encoding.name);
      break;
    }
  }
  body ??= await readFile(file);
  headers.set("content-length", String(body.byteLength));
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}

/**
 * The content codings an `Accept-Encoding` header allows (RFC 9110 §12.5.3): listed with a weight above zero, or
 * covered by `*`. Weights only allow or refuse here: the host always prefers Brotli, the smaller.
 */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const allowed = new Set<string>();
  const refused = new Set<string>();
  let any = false;
  for (const part of (header ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    if (name === "") continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const ok = weight === undefined || Number(weight.slice(2)) > 0;
    if (name === "*") any = ok;
    else (ok ? allowed : refused).add(name);
  }
  if (any) for (const { name } of ENCODINGS) if (!refused.has(name)) allowed.add(name);
  return allowed;
}
