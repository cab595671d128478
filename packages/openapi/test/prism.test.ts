import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acceptance, describeRefusals } from "./helpers/acceptance.js";
import { directoryPath } from "./helpers/directory.js";
import { EXAMPLES_ROOT } from "./helpers/examples.js";

/**
 * Prism, a mock server that validates every request against its document,
 * accepts the requests the adapter builds for every operation of these
 * real documents, from valid parameters generated from each tool's input
 * schema (`helpers/acceptance.ts`). The base URL points at a recording
 * proxy in front of Prism, so the configured base URL also has to win over
 * every operation-level server (Twilio repeats its server on each one).
 *
 * A few operations are left out, each for a limitation of Prism 5.14, not
 * of the request: they still must reach Prism (the client must not fail).
 */

const DOCUMENTS: [label: string, path: string][] = [
  ["oas-examples petstore (3.0)", join(EXAMPLES_ROOT, "3.0/json/petstore.json")],
  ["ably.io", directoryPath("ably.io/platform.json")],
  ["AWS SES v2", directoryPath("amazonaws.com/sesv2.json")],
  ["Vercel", directoryPath("vercel.com.json")],
  ["Twilio", directoryPath("twilio.com/api.json")],
];

/** Prism keeps only the last value of a repeated form field and builds arrays only for fields with an `encoding` style. */
const FORM_ARRAYS = "an urlencoded array field without an encoding entry (exploded form, the OpenAPI default)";
/** Prism matches path keys literally, including the `#fragment` AWS documents use to keep keys unique. */
const FRAGMENT_PATHS = "a path key with a #fragment";

const PRISM_LIMITATIONS: Record<string, string> = {
  "Twilio CreateCall": FORM_ARRAYS,
  "Twilio CreateCallRecording": FORM_ARRAYS,
  "Twilio CreateParticipant": FORM_ARRAYS,
  "Twilio UpdateConnectApp": FORM_ARRAYS,
  "Twilio CreateMessage": FORM_ARRAYS,
  "AWS SES v2 GetBlacklistReports": FRAGMENT_PATHS,
  "AWS SES v2 GetDomainStatisticsReport": FRAGMENT_PATHS,
  "AWS SES v2 ListDomainDeliverabilityCampaigns": FRAGMENT_PATHS,
  "AWS SES v2 ListTagsForResource": FRAGMENT_PATHS,
  "AWS SES v2 UntagResource": FRAGMENT_PATHS,
  // `idOrName` is oneOf string/boolean: Prism reads the path text `true` as both.
  "Vercel getProject": "a oneOf of string and boolean in the path",
};

describe("Prism accepts every request built from valid parameters", () => {
  it.each(DOCUMENTS)("%s", { timeout: 900_000 }, async (label, path) => {
    const report = await acceptance(path, readFileSync(path, "utf8"), label);
    expect(report.unsampled).toEqual([]);
    expect(report.outcomes).toHaveLength(report.tools);
    for (const outcome of report.outcomes) expect(outcome.sent, `${label} ${outcome.toolId}`).not.toBeNull();
    const refused = describeRefusals({
      ...report,
      outcomes: report.outcomes.filter((outcome) => PRISM_LIMITATIONS[`${label} ${outcome.toolId}`] === undefined),
    });
    expect(refused).toEqual([]);
  });
});
