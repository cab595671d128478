import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptedEncodings, CONSOLE_CSP } from "../../src/http/console-assets.js";
import { tempDir } from "../support/host.js";
import { type InProcessHost, startInProcess } from "../support/in-process.js";

/**
 * The web console's files at /ui/, served from a build folder made here (the real build is driven in a browser by
 * apps/console's suite): no key needed even with authentication on, the CSP and caching headers, the SPA fallback,
 * and no way out of the folder.
 */
const KEY = "console-assets-admin-key";

function fakeBuild(): string {
  const dir = tempDir("cyrnel-console-build-");
  mkdirSync(join(dir, "assets"));
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><script type="module" src="/ui/assets/index-abc123.js"></script>',
  );
  writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log('console');");
  writeFileSync(join(dir, "assets", "index-abc123.css"), "body{}");
  // The copies the console's build writes beside a file worth compressing (apps/console/vite.config.ts).
  writeFileSync(join(dir, "assets", "big-def456.js"), BIG_SCRIPT);
  writeFileSync(join(dir, "assets", "big-def456.js.br"), brotliCompressSync(BIG_SCRIPT));
  writeFileSync(join(dir, "assets", "big-def456.js.gz"), gzipSync(BIG_SCRIPT));
  return dir;
}

const BIG_SCRIPT = Buffer.from(
  `export const rows = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `row ${i}`))};`,
);

describe("with a console build", () => {
  let host: InProcessHost;
  let outside: string;

  beforeAll(async () => {
    const dir = fakeBuild();
    // A file beside the build folder that a traversal would reach.
    outside = join(dir, "..", `${dir.split("/").at(-1)}-secret.txt`);
    writeFileSync(outside, "not for the browser");
    host = await startInProcess({ env: { CYRNEL_API_KEY: KEY }, consoleBuild: { dir } });
  });
  afterAll(() => host?.stop());

  const get = (path: string, method = "GET") => host.request(method, path, undefined, { authorization: "" });

  it("redirects /ui to /ui/, keeping the query", async () => {
    const response = await get("/ui?x=1");
    expect(response.status).toBe(308);
    expect(response.headers.get("location")).toBe("/ui/?x=1");
  });

  it("serves index.html without a key, revalidated every time, under the strict CSP", async () => {
    const response = await get("/ui/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe");
    expect(await response.text()).toContain("/ui/assets/index-abc123.js");
  });

  it("caches hashed assets for a year with their content type", async () => {
    const script = await get("/ui/assets/index-abc123.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await script.text()).toBe("console.log('console');");
    const style = await get("/ui/assets/index-abc123.css", "HEAD");
    expect(style.status).toBe(200);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await style.text()).toBe("");
  });

  it("denies powerful browser features with a Permissions-Policy on every file", async () => {
    for (const path of ["/ui/", "/ui/services/weather", "/ui/assets/index-abc123.js"]) {
      const policy = (await get(path)).headers.get("permissions-policy") ?? "";
      for (const feature of ["camera", "microphone", "geolocation", "usb", "payment"]) {
        expect(policy, `${path} ${feature}`).toContain(`${feature}=()`);
      }
    }
  });

  it.each([
    ["gzip, deflate, br, zstd", "br"],
    ["gzip", "gzip"],
    ["br;q=0, gzip;q=0.5", "gzip"],
    ["*", "br"],
    ["*, br;q=0", "gzip"],
    ["identity", null],
    ["", null],
  ])("sends the build's precompressed copy the client accepts (Accept-Encoding: %j → %s)", async (accept, encoding) => {
    const response = await host.request("GET", "/ui/assets/big-def456.js", undefined, {
      authorization: "",
      "accept-encoding": accept,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBe(encoding);
    expect(response.headers.get("vary")).toBe("accept-encoding");
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get("content-length")).toBe(String(body.byteLength));
    const plain = encoding === "br" ? brotliDecompressSync(body) : encoding === "gzip" ? gunzipSync(body) : body;
    expect(plain.equals(BIG_SCRIPT)).toBe(true);
    if (encoding !== null) expect(body.byteLength).toBeLessThan(BIG_SCRIPT.byteLength / 3);
  });

  it("serves a file without copies as it is, still varying on Accept-Encoding; HEAD gives the copy's length", async () => {
    const style = await host.request("GET", "/ui/assets/index-abc123.css", undefined, {
      authorization: "",
      "accept-encoding": "br, gzip",
    });
    expect([style.headers.get("content-encoding"), style.headers.get("vary"), await style.text()]).toEqual([
      null,
      "accept-encoding",
      "body{}",
    ]);
    const head = await host.request("HEAD", "/ui/assets/big-def456.js", undefined, {
      authorization: "",
      "accept-encoding": "br",
    });
    expect(head.headers.get("content-encoding")).toBe("br");
    expect(head.headers.get("content-length")).toBe(String(brotliCompressSync(BIG_SCRIPT).byteLength));
    expect(acceptedEncodings("GZIP;q=1.0, br;q=0.000")).toEqual(new Set(["gzip"]));
  });

  it("answers index.html for the console's own routes, and 404 for missing files", async () => {
    for (const path of ["/ui/services", "/ui/services/weather", "/ui/processes/12"]) {
      const response = await get(path);
      expect([path, response.status, response.headers.get("content-type")]).toEqual([
        path,
        200,
        "text/html; charset=utf-8",
      ]);
    }
    for (const path of ["/ui/assets/gone-123.js", "/ui/favicon.ico", "/ui/services/x.json"]) {
      const response = await get(path);
      expect([path, response.status, ((await response.json()) as { code: string }).code]).toEqual([
        path,
        404,
        "not_found",
      ]);
    }
  });

  it("never serves a file outside the build folder", async () => {
    const name = outside.split("/").at(-1)!;
    // Encoded separators inside a segment are refused outright.
    for (const path of [`/ui/..%2f${name}`, `/ui/assets/..%5c..%5c${name}`, "/ui/%2e%2e%2f%2e%2e%2fetc/passwd"]) {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, 400]);
      expect(await response.text()).not.toContain("not for the browser");
    }
    // URL parsing resolves an encoded dot segment before routing: the path leaves /ui/ and meets the API's auth.
    const dots = await get(`/ui/%2e%2e/${name}`);
    expect(dots.status).toBe(401);
    expect(await dots.text()).not.toContain("not for the browser");
  });

  it("is not an API route: /openapi.json does not list it, and the API still needs the key", async () => {
    const document = (await host.api("GET", "/openapi.json")).body;
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/ui"))).toEqual([]);
    expect((await get("/services")).status).toBe(401);
  });
});

describe("without a console build", () => {
  let host: InProcessHost;
  beforeAll(async () => {
    host = await startInProcess({ consoleBuild: { missing: "the @cyrnel/console package is not installed" } });
  });
  afterAll(() => host?.stop());

  it("starts, logs why, and answers /ui/ with a 404 that says so", async () => {
    expect(host.logs().find((line) => line.msg === "the web console is not available; /ui/ answers 404")).toMatchObject(
      {
        reason: "the @cyrnel/console package is not installed",
      },
    );
    const response = await host.api("GET", "/ui/");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      code: "not_found",
      error: "the web console is not available: the @cyrnel/console package is not installed",
    });
    expect((await host.api("GET", "/health")).status).toBe(200);
  });
});
