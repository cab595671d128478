// Fair type checks: key A submits SLOW (10) checked programs whose types take TypeScript tens of seconds (each fails
// its budget), then key B submits one trivial checked program. The figure is how long B's program takes from its
// submission to its end; the baseline is the same program of B's on the idle host. With one checker serving
// submissions in order, B waited behind every one of A's failures and their re-checks.
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { report } from "./lib/stats.mjs";

const SLOW = Number(process.env.SLOW ?? 10);
const BUDGET_MS = Number(process.env.BUDGET_MS ?? 5_000);

/** A union of 125,000 tuples: tens of seconds of TypeScript. `tag` keeps each submission its own check. */
const slow = (tag) => `type D = ${Array.from({ length: 50 }, (_, i) => i).join(" | ")};
type P = { [K in D]: { [L in D]: { [M in D]: [K, L, M] }[D] }[D] }[D];
const p: P = [1, 2, 3];
// ${tag}
cyrnel.output({ p });`;
const TRIVIAL = (tag) => `const n: number = 1;\ncyrnel.output({ n }); // ${tag}`;

export async function typecheckFairness() {
  const host = await startHost({ CYRNEL_API_KEY: "bench-bootstrap" });
  const as = (key) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
  const call = async (key, method, path, body) => {
    const response = await fetch(`${host.url}${path}`, { method, headers: as(key), body: JSON.stringify(body) });
    const parsed = await response.json();
    if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  try {
    // An environment config older hosts may not know is left alone if refused.
    await call("bench-bootstrap", "PATCH", "/modules/typescript-ivm/config", { typecheckTimeoutMs: BUDGET_MS }).catch(
      () => {},
    );
    const keyA = (await call("bench-bootstrap", "POST", "/keys", { name: "a", role: "agent" })).key;
    const keyB = (await call("bench-bootstrap", "POST", "/keys", { name: "b", role: "agent" })).key;
    const run = (key, code) =>
      call(key, "POST", "/processes", { code, block: true, typecheck: true, timeoutMs: 600_000 });

    let started = performance.now();
    const idle = await run(keyB, TRIVIAL("idle"));
    const alone = performance.now() - started;
    if (idle.exitState !== "success") throw new Error(`B alone: ${JSON.stringify(idle)}`);

    const floods = Array.from({ length: SLOW }, (_, i) => run(keyA, slow(`a${i}`)).catch((error) => error));
    await new Promise((resolve) => setTimeout(resolve, 500));
    started = performance.now();
    const behind = await run(keyB, TRIVIAL("behind"));
    const waited = performance.now() - started;
    const bEnded = behind.exitState;
    const aStarted = performance.now();
    const aResults = await Promise.all(floods);
    const aDone = performance.now() - aStarted + waited;
    const result = report(
      `a trivial checked program of key B behind ${SLOW} slow ones of key A`,
      { value: waited, label: `B's program ended ${bEnded}; A's ${SLOW} ended within ${(aDone / 1000).toFixed(0)} s` },
      { value: alone, label: "the same program on the idle host" },
    );
    console.log(
      `  A's outcomes: ${JSON.stringify(
        aResults
          .map((r) => (r instanceof Error ? r.message.slice(0, 60) : r.exitState))
          .reduce((acc, s) => {
            acc[s] = (acc[s] ?? 0) + 1;
            return acc;
          }, {}),
      )}`,
    );
    return result;
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await typecheckFairness();
