import { describe, expect, it } from "vitest";
import { checkInput, corpusDocuments, corpusSize, type SweepResult, sweepDocument } from "./support/corpus.js";

/**
 * No false refusals on real APIs: inputs that each tool's own input schema
 * accepts (ajv) pass the type check (support/corpus.ts). The documents are
 * the two named in issue reports (Slack, DigitalOcean) and an even spread
 * over the rest of the corpus by name, of the documents up to 400 KB (so the
 * sweep stays a few seconds). `bench/README.md` reports the figure.
 */
const NAMED = ["slack.com.json", "digitalocean.com.json"];
const SPREAD = 46;
const TOOLS_PER_API = 8;

function documents(): string[] {
  const small = corpusDocuments().filter((path) => !NAMED.includes(path) && corpusSize(path) <= 400_000);
  const step = small.length / SPREAD;
  return [...NAMED, ...Array.from({ length: SPREAD }, (_, i) => small[Math.floor(i * step)]!)];
}

describe("real API documents", () => {
  it("accepts every program that passes a valid input to a tool", { timeout: 600_000 }, async () => {
    const results: SweepResult[] = [];
    const unreadable: string[] = [];
    for (const document of documents()) {
      try {
        results.push(await sweepDocument(document, TOOLS_PER_API));
      } catch (error) {
        // Documents the adapter refuses (invalid, or Swagger features it does not take) have no tools to check.
        unreadable.push(`${document}: ${error instanceof Error ? error.message.slice(0, 80) : String(error)}`);
      }
    }
    const checked = results.reduce((sum, result) => sum + result.checked, 0);
    const refusals = results.flatMap((result) => result.refusals.map((refusal) => `${result.document} ${refusal}`));
    const tools = results.reduce((sum, result) => sum + result.tools, 0);
    const noInput = results.reduce((sum, result) => sum + result.noInput, 0);
    const mutated = results.reduce((sum, result) => sum + result.mutated, 0);
    const mutatedRefused = results.reduce((sum, result) => sum + result.mutatedRefused, 0);
    console.log(
      `corpus sweep: ${results.length} APIs (${unreadable.length} unreadable), ${tools} tools, ${noInput} without a valid input, ` +
        `${checked} valid inputs checked, ${refusals.length} refused (${((100 * refusals.length) / Math.max(checked, 1)).toFixed(2)}%); ` +
        `${mutatedRefused} of ${mutated} inputs with an unknown parameter refused`,
    );
    expect(results.length).toBeGreaterThanOrEqual(40);
    expect(checked).toBeGreaterThan(200);
    expect(refusals).toEqual([]);
    // The check is not vacuous: an input ajv refuses for an unknown parameter is refused by the types too.
    expect(mutatedRefused).toBe(mutated);
  });

  it("accepts DigitalOcean's app spec with a log destination whose required endpoint has no property", async () => {
    const spec = {
      name: "web",
      services: [{ name: "api", log_destinations: { name: "logs", logtail: { token: "t", endpoint: "https://in" } } }],
    };
    const result = await checkInput("digitalocean.com.json", "apps_create", { body: { spec } });
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
  });

  it("lets a program read Slack's conversation, whose schema has `items` and no `type`", async () => {
    const result = await checkInput(
      "slack.com.json",
      "conversations_info",
      { token: "xoxb", channel: "C1" },
      "if (r.channel !== undefined) console.log(r.channel.name, r.channel.is_private);",
    );
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
  });
});
