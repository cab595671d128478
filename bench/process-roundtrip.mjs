// Process round trip: `POST /processes {block:true}` with trivial code,
// against a raw isolated-vm context create + compile + run in this process.
// Then where the time goes: the same round trip against `GET /health` (the
// HTTP floor: same client, server and stack, no process) and against a
// fresh isolate's whole life in this process (what every process pays,
// since none reuses an isolate). Then throughput: blocking trivial processes
// per second from 16 clients.
import { pathToFileURL } from "node:url";
import ivm from "isolated-vm";
import { startHost } from "./lib/host.mjs";
import { median, report, timeEach } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 300);
const CODE = "cyrnel.output({ ok: 1 + 1 });";

export async function processRoundtrip() {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const raw = await timeEach(ROUNDS, async () => {
    const context = await isolate.createContext();
    const script = await isolate.compileScript("const out = { ok: 1 + 1 }; JSON.stringify(out)");
    await script.run(context, { timeout: 1000 });
    script.release();
    context.release();
  });
  isolate.dispose();
  const fresh = await timeEach(ROUNDS, async () => {
    const own = new ivm.Isolate({ memoryLimit: 128 });
    const context = own.createContextSync();
    await context.eval("const out = { ok: 1 + 1 }; JSON.stringify(out)");
    own.dispose();
  });

  const host = await startHost();
  try {
    for (let i = 0; i < 20; i++) await host.api("POST", "/processes", { code: CODE, block: true });
    const viaHost = await timeEach(ROUNDS, async () => {
      const result = await host.api("POST", "/processes", { code: CODE, block: true });
      if (result.exitState !== "success") throw new Error(JSON.stringify(result));
    });
    const health = await timeEach(ROUNDS, () => host.api("GET", "/health"));
    const results = [
      report(
        "process round trip (median)",
        { value: median(viaHost), label: `POST /processes block:true, ${ROUNDS} sequential runs over HTTP` },
        { value: median(raw), label: "raw isolated-vm: createContext + compileScript + run, warm isolate" },
      ),
      report(
        "process round trip against the HTTP floor (median)",
        { value: median(viaHost), label: "POST /processes block:true (above)" },
        { value: median(health), label: "GET /health: the same client, server and HTTP stack, no process" },
      ),
      report(
        "process round trip against a fresh isolate's whole life (median)",
        { value: median(viaHost), label: "POST /processes block:true (above)" },
        { value: median(fresh), label: "new Isolate + context + eval + dispose in this process" },
      ),
    ];

    const clients = 16;
    const seconds = Number(process.env.SECONDS ?? 5);
    let completed = 0;
    const until = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          await host.api("POST", "/processes", { code: CODE, block: true });
          completed++;
        }
      }),
    );
    const perSecond = completed / ((performance.now() - started) / 1000);
    const rawPerSecond = 1000 / median(raw);
    results.push(
      report(
        "throughput",
        { value: perSecond, label: `blocking trivial processes per second, ${clients} concurrent clients` },
        { value: rawPerSecond, label: "raw isolated-vm runs per second, one after another in-process" },
        "/s",
      ),
    );
    return results;
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await processRoundtrip();
