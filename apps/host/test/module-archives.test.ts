import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gzipBomb, type PublishedArchive, peakRssBytes, publishArchive } from "./support/archives.js";
import { startHost, type TestHost } from "./support/host.js";

/**
 * A gzip bomb (a 4.5 MB `.tgz` holding one 1 GiB entry, made at run time) sent
 * through both archive routes: refused at its first header with a 400 that
 * names the limit, while the host's peak memory stays far below the bomb.
 */
const ENTRY_BYTES = 1024 ** 3;
/** Generous for a host that never inflates the entry; the unfixed host peaks above 1 GiB. */
const PEAK_RSS_LIMIT = 512 * 1024 * 1024;

let host: TestHost;
let bomb: PublishedArchive;

beforeAll(async () => {
  host = await startHost({ modules: ["recorder"] });
  bomb = await publishArchive(await gzipBomb(ENTRY_BYTES), "bomb");
});

afterAll(async () => {
  await host?.stop();
  await bomb?.close();
});

describe("a gzip-bomb module archive", () => {
  const refusal = `entry "package/zeros-0.bin" is ${ENTRY_BYTES} bytes, over the limit of`;

  it("is refused by POST /modules/install without inflating it", async () => {
    const response = await host.api("POST", "/modules/install", { source: bomb.descriptor });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe("bad_request");
    expect(response.body.error).toContain(refusal);
    expect(peakRssBytes(host.child.pid!)).toBeLessThan(PEAK_RSS_LIMIT);
    expect((await host.api("GET", "/modules/bomb")).status).toBe(404);
  });

  it("is refused by PATCH /modules/:id without inflating it, and the module keeps running", async () => {
    const response = await host.api("PATCH", "/modules/recorder", { url: bomb.url });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toContain(refusal);
    expect(peakRssBytes(host.child.pid!)).toBeLessThan(PEAK_RSS_LIMIT);
    expect((await host.api("GET", "/modules/recorder")).body).toMatchObject({ version: "1.0.0", error: null });
    // Nothing is left in the staging folder.
    const staging = join(host.dataDir, "modules", ".staging");
    expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);
    expect((await host.api("GET", "/health")).status).toBe(200);
  });
});
