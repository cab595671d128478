// `GET /stats` (the console's summary: exact counts from indexes) with `PROCESSES` (100,000) processes kept,
// against `GET /health` (the same HTTP stack, no database work) in the same run. The processes are written straight
// into the database between two starts of the host (one statement), ended over the last 29 days (within the default
// retention of 30), so the default window (a day) holds a 29th of them; a window holding all of them is measured
// too. A tenth failed, a tenth timed out (half of those in the queue, never started), a tenth canceled.
// On PostgreSQL with CYRNEL_DATABASE_URL (an empty database), else SQLite.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const PROCESSES = Number(process.env.PROCESSES ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 300);
/** Spread over 29 days: the host deletes processes that finished more than 30 days ago (its default retention). */
const DAYS = 29;

const exitState = (i) =>
  `CASE ${i} % 10 WHEN 0 THEN 'failed' WHEN 1 THEN 'timeout' WHEN 2 THEN 'canceled' ELSE 'success' END`;

async function insertProcesses(dataDir) {
  const spread = `(${"i"} * ${DAYS * 86400} / ${PROCESSES})`;
  if (process.env.CYRNEL_DATABASE_URL) {
    const client = new pg.Client({ connectionString: process.env.CYRNEL_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`
        INSERT INTO processes (state, exit_state, timeout_ms, code, runs, created_at, started_at, finished_at)
        SELECT 'idle', ${exitState("i")}, 30000, 'cyrnel.output(1)', 1, ts, CASE WHEN i % 20 = 1 THEN NULL ELSE ts END, ts
        FROM (SELECT i, to_char((now() - ${spread} * interval '1 second') AT TIME ZONE 'UTC',
                                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts
              FROM generate_series(1, ${PROCESSES}) AS i) AS s`);
      await client.query("ANALYZE processes");
    } finally {
      await client.end();
    }
    return;
  }
  const hostRequire = createRequire(createRequire(import.meta.url).resolve("@cyrnel/host/package.json"));
  const Database = hostRequire("better-sqlite3");
  const db = new Database(join(dataDir, "data.db"));
  try {
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${PROCESSES})
      INSERT INTO processes (state, exit_state, timeout_ms, code, runs, created_at, started_at, finished_at)
      SELECT 'idle', ${exitState("i")}, 30000, 'cyrnel.output(1)', 1, ts, CASE WHEN i % 20 = 1 THEN NULL ELSE ts END, ts
      FROM (SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ${spread} || ' seconds') AS ts FROM n)`);
    db.exec("ANALYZE");
  } finally {
    db.close();
  }
}

export async function stats() {
  const dataDir = mkdtempSync(join(tmpdir(), "cyrnel-bench-stats-"));
  try {
    // The first start applies the migrations; the rows go in while no host holds the database.
    await (await startHost({ CYRNEL_DATA_DIR: dataDir })).stop();
    const inserting = performance.now();
    await insertProcesses(dataDir);
    console.log(`inserted ${PROCESSES} processes in ${Math.round(performance.now() - inserting)} ms`);
    const host = await startHost({ CYRNEL_DATA_DIR: dataDir });
    try {
      const all = new Date(Date.now() - (DAYS + 1) * 86400_000).toISOString();
      const day = await host.api("GET", "/stats");
      const month = await host.api("GET", `/stats?since=${all}`);
      const sum = (ended) => Object.values(ended).reduce((a, b) => a + b, 0);
      if (sum(month.processes.ended) !== PROCESSES) throw new Error(`expected ${PROCESSES}: ${JSON.stringify(month)}`);
      console.log(`a day: ${JSON.stringify(day.processes)}`);
      console.log(`30 days: ${JSON.stringify(month.processes)}`);
      const health = await timeEach(ROUNDS, () => host.api("GET", "/health"));
      const daily = await timeEach(ROUNDS, () => host.api("GET", "/stats"));
      const monthly = await timeEach(Math.ceil(ROUNDS / 3), () => host.api("GET", `/stats?since=${all}`));
      const baseline = { value: median(health), label: "GET /health" };
      return [
        report(
          `GET /stats with ${PROCESSES.toLocaleString("en")} processes, default window (median)`,
          { value: median(daily), label: `${sum(day.processes.ended).toLocaleString("en")} ended in the last day` },
          baseline,
        ),
        report(
          `GET /stats?since=<30 days ago> with ${PROCESSES.toLocaleString("en")} processes (median)`,
          { value: median(monthly), label: "every process in the window" },
          baseline,
        ),
      ];
    } finally {
      await host.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await stats();
