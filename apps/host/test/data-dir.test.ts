import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { restart, startHost, type TestHost } from "./support/host.js";
import { enableRecorder, installRecorded } from "./support/recorder.js";

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
    const files = ["data.db", "data.db-wal", "data.db-shm", "secrets.key"].map((name) => join(dir, name));
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
