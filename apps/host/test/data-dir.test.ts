import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { testDialect } from "./support/database.js";
import { restart, startHost, type TestHost } from "./support/host.js";
import { enableRecorder, installRecorded, recorderDefinition } from "./support/recorder.js";

let hosts: TestHost[] = [];
afterEach(async () => {
  for (const host of hosts) await host.kill();
  hosts = [];
});
const track = (host: TestHost) => {
  hosts.push(host);
  return host;
};

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the data directory", () => {
  it("is readable by its owner only: 0700 folders, 0600 files, old data dirs tightened at start", async () => {
    const host = track(await startHost({ modules: ["recorder"] }));
    const hookLog = await enableRecorder(host);
    await installRecorded(host, "moded", [{ id: "t" }]);
    await host.api("PATCH", "/services/moded/secrets", { token: "mode-check" });
    const dir = host.dataDir;
    // On PostgreSQL the database is not in the data directory; the key file and modules still are.
    const names =
      testDialect() === "sqlite" ? ["data.db", "data.db-wal", "data.db-shm", "secrets.key"] : ["secrets.key"];
    const files = names.map((name) => join(dir, name));
    const folders = [dir, join(dir, "modules"), join(dir, "modules", "recorder")];
    const check = () => {
      for (const file of files) expect(mode(file), file).toBe(0o600);
      for (const folder of folders) expect(mode(folder), folder).toBe(0o700);
    };
    check();
    // A file the host process creates later (here the module's own log) gets 0600 through the umask.
    expect(mode(hookLog)).toBe(0o600);

    await host.stop();
    for (const file of files.filter(existsSync)) chmodSync(file, 0o644);
    for (const folder of folders) chmodSync(folder, 0o755);
    const again = track(await restart(host));
    await again.api("PATCH", "/services/moded/secrets", { token: "mode-check-2" });
    check();
  });
});

// SQLite's own files: free pages and the WAL given back (PostgreSQL's autovacuum does that job there).
describe.skipIf(testDialect() === "postgres")("the database", () => {
  const onDisk = (dir: string) =>
    ["data.db", "data.db-wal"].reduce(
      (sum, name) => sum + (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0),
      0,
    );

  it("gives the space of deleted services back: the database and its WAL return near their size before", async () => {
    const host = track(await startHost({ modules: ["recorder"] }));
    await enableRecorder(host);
    const baseline = onDisk(host.dataDir);
    // Each definition is stored whole: 2 MiB of text per service, 8 at a time, three rounds.
    const definition = recorderDefinition([{ id: "t" }], { padding: "x".repeat(2 * 1024 * 1024) });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 8; i++) {
        const installed = await host.api("POST", "/services", { id: `big${i}`, adapter: "recorder", definition });
        expect(installed.status, installed.text).toBe(201);
      }
      for (let i = 0; i < 8; i++) expect((await host.api("DELETE", `/services/big${i}`)).status).toBe(204);
    }
    expect((await host.api("GET", "/services")).body.items).toEqual([]);
    await expect.poll(() => onDisk(host.dataDir), { interval: 200 }).toBeLessThan(baseline + 2 * 1024 * 1024);
  });
});
