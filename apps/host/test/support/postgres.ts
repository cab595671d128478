/**
 * A throw-away PostgreSQL server for tests: `initdb` into a temporary
 * folder, `pg_ctl start` on 127.0.0.1 at a free port (its unix socket in the
 * same folder, so nothing touches the machine's own cluster), and a fresh
 * database per test. Durability is off (fsync, synchronous commit): the data
 * is thrown away anyway, and it makes starting and writing fast on a loaded
 * machine.
 *
 * PostgreSQL refuses to run as root, so under root (CI, the dev machines)
 * every server command runs as the `postgres` user through `runuser`, in a
 * folder that user owns.
 *
 * Use `usePostgres()` in a test file: one server for the file, started in
 * `beforeAll` and removed in `afterAll`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";

export interface TestPostgres {
  readonly port: number;
  /** Connection string of a database on this server (`postgres`, the maintenance database, by default). */
  url(database?: string): string;
  /** Creates an empty database with a fresh name and returns its connection string. */
  createDatabase(): Promise<string>;
  /** Stops the server (immediately: nothing is kept) and removes its folder. */
  stop(): void;
}

const SERVER_USER = "postgres";

/** Where the server binaries are: `CYRNEL_PG_BIN`, else the newest Debian `postgresql-<major>` package. */
function binDir(): string {
  const fromEnv = process.env.CYRNEL_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] === undefined) {
    throw new Error(
      "PostgreSQL server binaries not found (no /usr/lib/postgresql/<major>/bin/initdb, and CYRNEL_PG_BIN is not " +
        "set). The cluster tests start a throw-away PostgreSQL: install Debian's `postgresql` package " +
        "(apt-get install -y postgresql), or set CYRNEL_PG_BIN to a folder holding initdb and pg_ctl.",
    );
  }
  return join(root, majors[0], "bin");
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Runs a server binary, as the `postgres` user when we are root; throws with its output on failure. */
function runServerCommand(bin: string, args: string[], cwd: string): void {
  const [command, commandArgs] = serverArgs(bin, args);
  const result = spawnSync(command, commandArgs, { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(
      `${bin} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`,
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "cyrnel-pg-"));
  if (asRoot()) {
    const uid = Number(execFileSync("id", ["-u", SERVER_USER], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", SERVER_USER], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      // Immediate: the data is thrown away, so there is nothing to shut down cleanly for.
      spawnSync(...serverArgs(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]), {
        cwd: dir,
        stdio: "ignore",
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A test file that dies without its afterAll must not leave a server running.
  process.once("exit", stop);
  try {
    runServerCommand(
      join(bin, "initdb"),
      ["-D", data, "-U", SERVER_USER, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
      dir,
    );
    // A free port can be taken by someone else before the server binds it: try a few.
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const options = [
        "-c listen_addresses=127.0.0.1",
        `-c port=${port}`,
        `-c unix_socket_directories=${dir}`,
        "-c fsync=off",
        "-c synchronous_commit=off",
        "-c full_page_writes=off",
        "-c max_connections=200",
      ].join(" ");
      try {
        runServerCommand(join(bin, "pg_ctl"), ["-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"], dir);
        started = true;
        break;
      } catch (error) {
        if (attempt >= 3) {
          const serverLog = existsSync(log) ? readFileSync(log, "utf8") : "";
          throw new Error(`${(error as Error).message}\nserver log:\n${serverLog}`);
        }
      }
    }
    let databases = 0;
    const url = (database = "postgres") => `postgresql://${SERVER_USER}@127.0.0.1:${port}/${database}`;
    return {
      port,
      url,
      async createDatabase() {
        const name = `test_${process.pid}_${++databases}`;
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      stop() {
        process.off("exit", stop);
        stop();
      },
    };
  } catch (error) {
    process.off("exit", stop);
    stop();
    throw error;
  }
}

function serverArgs(bin: string, args: string[]): [string, string[]] {
  return asRoot() ? ["runuser", ["-u", SERVER_USER, "--", bin, ...args]] : [bin, args];
}

/** One server for the calling test file: started before its tests, stopped and removed after them. */
export function usePostgres(): { readonly server: TestPostgres } {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());
  return {
    get server() {
      if (!server) throw new Error("the test PostgreSQL is not started (usePostgres() runs in beforeAll)");
      return server;
    },
  };
}
