import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { acceptance, describeRefusals } from "../test/helpers/acceptance.js";
import { DIRECTORY_ROOT } from "../test/helpers/directory.js";

/**
 * The Prism acceptance sweep over a larger, fixed sample of the APIs.guru
 * corpus: every `STEP`-th document (sorted by path) under `MAX_BYTES`.
 * Run by `scripts/prism-sweep.mjs`; not part of `pnpm test`. Prints one
 * line per document, the refused requests, and the acceptance rate.
 */

const step = Number(process.env.STEP ?? 100);
const maxBytes = Number(process.env.MAX_BYTES ?? 1_000_000);

function corpus(): string[] {
  return (readdirSync(DIRECTORY_ROOT, { recursive: true }) as string[])
    .map((file) => file.split("\\").join("/"))
    .filter((file) => file.endsWith(".json"))
    .sort();
}

it("Prism accepts the requests built from every tool's input schema", { timeout: 24 * 3_600_000 }, async () => {
  const sample = corpus()
    .filter((_file, index) => index % step === 0)
    .filter((file) => statSync(join(DIRECTORY_ROOT, file)).size <= maxBytes);
  let sent = 0;
  let accepted = 0;
  const skipped: string[] = [];
  for (const file of sample) {
    const path = join(DIRECTORY_ROOT, file);
    try {
      const report = await acceptance(path, readFileSync(path, "utf8"), file);
      const refused = describeRefusals(report);
      sent += report.outcomes.length;
      accepted += report.outcomes.length - refused.length;
      console.log(
        `${file}: ${report.outcomes.length - refused.length}/${report.outcomes.length} accepted` +
          (report.unsampled.length > 0 ? `, ${report.unsampled.length} without valid sample parameters` : ""),
      );
      for (const line of refused) console.log(`  ${line.slice(0, 500)}`);
    } catch (error) {
      skipped.push(`${file}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const rate = sent === 0 ? 0 : (100 * accepted) / sent;
  console.log(`\nNot measured (install refused or Prism could not serve the document):\n  ${skipped.join("\n  ")}`);
  console.log(
    `\nPrism acceptance: ${accepted}/${sent} requests (${rate.toFixed(1)}%) over ${sample.length - skipped.length} documents`,
  );
});
