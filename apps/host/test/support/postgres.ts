/**
 * A throw-away PostgreSQL server for the host's suites, and a database per
 * test host. The server comes from Debian's `postgresql` package: initdb
 * and pg_ctl run as the `postgres` user (PostgreSQL refuses to run as root)
 * in a temporary folder, listening on a free loopback port only. Each data
 * directory a test host uses gets its own database, named after it, so a
 * host restarted on the same data directory finds its rows again and the
 * suites stay independent of each other.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export type TestDialect = "sqlite" | "postgres";

/** The dialect this run of the suites uses (the host's `test` script runs them once per dialect). */
export function testDialect(): TestDialect {
  return process.env.CYRNEL_TEST_DIALECT === "postgres" ? "postgres" : "sqlite";
}

/** The newest PostgreSQL's `bin` folder, or a message saying what to install. */
export function postgresBin(): { bin: string } | { missing: string } {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter(
          (name) => existsSync(join(root, name, "bin", "initdb")) && existsSync(join(root, name, "bin", "pg_ctl")),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    return {
      missing:
        "PostgreSQL's server binaries (initdb, pg_ctl under /usr/lib/postgresql/<version>/bin) are not installed: " +
        "install Debian's `postgresql` package (apt-get install postgresql), or set CYRNEL_TEST_DIALECTS=sqlite " +
        "to run the suites on SQLite only",
    };
  }
  return { bin: join(root, versions[0]!, "bin") };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ThrowawayPostgres {
  /** A superuser's URL (its password is ignored: the server trusts loopback connections). */
  adminUrl: string;
  stop(): void;
}

/** initdb + pg_ctl start into a new temporary folder; about 3 s. */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const found = postgresBin();
  if ("missing" in found) throw new Error(found.missing);
  const root = mkdtempSync(join(tmpdir(), "cyrnel-postgres-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(root, uid, gid);
  }
  chmodSync(root, 0o700);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? "runuser" : join(found.bin, tool);
    const argv = asRoot ? ["-u", "postgres", "--", join(found.bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: "utf8", cwd: root });
    if (result.status !== 0) {
      throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout || result.error}`);
    }
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  // Throw-away data: no durability is needed, and the suites write a lot.
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(root, "server.log"), "-w", "-t", "60", "start"]);
  return {
    adminUrl: `postgres://postgres:throwaway@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** The database of a test host's data directory, created on first use; its URL. */
export async function databaseFor(adminUrl: string, dataDir: string): Promise<string> {
  const name = `cyrnel_${createHash("sha256").update(dataDir).digest("hex").slice(0, 24)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } catch (error) {
    // 42P04: it exists already (the host was started on this data directory before).
    if ((error as { code?: string }).code !== "42P04") throw error;
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
