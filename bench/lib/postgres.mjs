// A throw-away PostgreSQL server for benches that run hosts on PostgreSQL:
// Debian's `postgresql` binaries, initdb into a temporary folder and pg_ctl
// start on 127.0.0.1 (as the `postgres` user when run as root, since
// PostgreSQL refuses root), without durability (fsync off: nothing here is
// kept). `database()` makes a fresh empty database and answers its URL.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function postgresBin() {
  const root = "/usr/lib/postgresql";
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (version === undefined) throw new Error("PostgreSQL's server is not installed: apt-get install postgresql");
  return join(root, version, "bin");
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPostgres() {
  const bin = postgresBin();
  const root = mkdtempSync(join(tmpdir(), "cyrnel-bench-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(root, id("-u"), id("-g"));
  }
  chmodSync(root, 0o700);
  const run = (tool, args) => {
    const command = asRoot ? "runuser" : join(bin, tool);
    const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: "utf8", cwd: root });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout || result.error}`);
    return result.stdout;
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(root, "server.log"), "-w", "-t", "60", "start"]);
  let databases = 0;
  return {
    /** A new empty database; its URL. */
    database() {
      const name = `bench_${++databases}`;
      run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
      // BENCH_PG_SOCKET=1: hosts connect through the server's Unix socket instead of TCP on loopback.
      return process.env.BENCH_PG_SOCKET === "1"
        ? `postgres://postgres@localhost/${name}?host=${encodeURIComponent(root)}&port=${port}`
        : `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    /** Runs SQL with psql on a database of this server; the rows as tab-separated lines. */
    query(url, sql) {
      const name = new URL(url).pathname.slice(1);
      return run("psql", [
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "postgres",
        "-d",
        name,
        "-At",
        "-F",
        "\t",
        "-c",
        sql,
      ])
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t"));
    },
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
