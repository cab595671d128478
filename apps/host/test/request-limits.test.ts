import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";
import { doublingCopies, manyCopies, nestedJson } from "./support/hostile-inputs.js";
import { enableRecorder, installRecorded } from "./support/recorder.js";

/**
 * Patches and bodies built to exhaust the host (a merge patch nested 100,000
 * deep, thousands of RFC 6902 `copy` operations that double the document)
 * answer 400 naming the limit, on every config and secrets route, and the
 * host stays responsive.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startHost({ modules: ["recorder"] });
  await enableRecorder(host);
  await installRecorded(host, "target", [{ id: "echo", behavior: "echo" }]);
});
afterAll(async () => {
  await host?.stop();
});

const PATCH_ROUTES = [
  "/services/target/config",
  "/services/target/secrets",
  "/modules/recorder/config",
  "/modules/recorder/secrets",
];

describe.each(PATCH_ROUTES)("PATCH %s", (path) => {
  it("answers 400 naming the nesting limit for a merge patch nested 100,000 deep", async () => {
    const response = await host.api("PATCH", path, nestedJson(100_000));
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatch(/nests deeper than \d+ levels/);
  });

  it("answers 400 naming the nesting limit for a patch deeper than a document may be", async () => {
    const response = await host.api("PATCH", path, nestedJson(100));
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatch(/nests deeper than 64 levels/);
  });

  it("answers 400 naming the operation limit for 2,000 copy operations", async () => {
    const ops = manyCopies(2_000);
    const response = await host.api("PATCH", path, ops);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain("at most 1000 operations");
  });

  it("answers 400 naming the size limit when copies would grow the document past it", async () => {
    const response = await host.api("PATCH", path, doublingCopies(60));
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatch(/larger than \d+ bytes/);
  });
});

describe("request bodies", () => {
  it("refuses a body nested deeper than the limit before parsing it, on any route", async () => {
    const deep = `{"parameters":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
    const response = await host.api("POST", "/tools/target/echo/invoke", deep);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatch(/request body nests deeper than \d+ levels/);
  });

  it("refuses a body that is not valid UTF-8", async () => {
    const response = await fetch(`${host.url}/tools/target/echo/invoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.from('{"parameters":{"text":"\xff\xfe"}}', "latin1"),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("request body is not valid UTF-8");
  });

  it("keeps ordinary patches working and the host responsive", async () => {
    const merge = await host.api("PATCH", "/services/target/config", { region: { name: "eu", zones: [1, 2] } });
    expect(merge.status, merge.text).toBe(200);
    const ops = await host.api("PATCH", "/services/target/config", [
      { op: "copy", from: "/region", path: "/backup" },
      { op: "replace", path: "/region/name", value: "us" },
    ]);
    expect(ops.status, ops.text).toBe(200);
    expect(ops.body.config).toMatchObject({ region: { name: "us" }, backup: { name: "eu", zones: [1, 2] } });
    expect((await host.api("GET", "/health")).status).toBe(200);
  });
});
