import { describe, expect, it } from "vitest";
import { typeErrors, typescriptVersion } from "../../test/support/typecheck.js";
import { NO_PARAMS, PETSTORE_ADD_PET, WEATHER_FORECAST } from "./fixtures.test-data.js";
import { renderRuntimeSurface, renderServiceFile, renderTypes } from "./types-file.js";

const declarations = renderTypes([WEATHER_FORECAST, PETSTORE_ADD_PET, NO_PARAMS]);

/** Process code, wrapped the way the declaration file's header says. */
function check(code: string): string[] {
  return typeErrors({ "cyrnel.d.ts": declarations, "main.ts": `async function main() {\n${code}\n}\nvoid main;\n` });
}

describe("renderTypes", () => {
  it("is checked with the workspace's TypeScript 5.9", () => {
    expect(typescriptVersion).toMatch(/^5\.9\./);
  });

  it("declares a cyrnel global typed for exactly the given tools", () => {
    expect(declarations).toContain("declare const cyrnel: {");
    expect(declarations).toContain(
      "readonly forecast: CyrnelTool<CyrnelTools.weather.forecast.Input, CyrnelTools.weather.forecast.Output>;",
    );
    expect(declarations).toContain("declare function setTimeout<");
    expect(declarations).toContain("declare const console: {");
    expect(typeErrors({ "cyrnel.d.ts": declarations })).toEqual([]);
  });

  it("is made of the pieces the type checker keeps: one file per service and the runtime surface", () => {
    const tools = [WEATHER_FORECAST, PETSTORE_ADD_PET, NO_PARAMS];
    const services = ["clock", "petstore", "weather"].map((id) => renderServiceFile(id, tools));
    for (const service of services) expect(declarations).toContain(service.text);
    expect(services.map((service) => service.tools)).toEqual([["now"], ["addPet"], ["forecast"]]);
    const surface = renderRuntimeSurface(
      ["clock", "petstore", "weather"].map((serviceId, i) => ({
        serviceId,
        type: { namespace: services[i]!.namespace },
      })),
    );
    expect(declarations.endsWith(surface)).toBe(true);
    expect(surface).toContain("    readonly weather: CyrnelServices.weather;\n");
  });

  it("accepts a correct program", () => {
    expect(
      check(`
        const forecast = await cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo", days: 3, units: "metric" });
        const highs: number[] = forecast.days.map((day) => day.high);
        const pet = await cyrnel.services.petstore.tools.addPet.invoke({
          body: { name: "Rex", photoUrls: [], tags: [{ id: 1 }], status: null, parent: { name: "Max", photoUrls: ["u"] }, attributes: { color: "brown" } },
          mode: "safe",
        });
        if (pet !== null) console.log(pet.id, pet.name.toUpperCase(), pet.meta?.version);
        const now: string = await cyrnel.services.clock.tools.now.invoke({});
        cyrnel.output({ highs, now });
        const timer = setTimeout((label: string) => console.error(label), 10, "late");
        clearTimeout(timer);
        try { await cyrnel.services.weather.tools.forecast.invoke({ city: "x" }); }
        catch (error) { const e = error as CyrnelToolCallError; console.warn(e.status, e.code); }
      `),
    ).toEqual([]);
  });

  it.each([
    [
      "a misspelt parameter",
      `await cyrnel.services.weather.tools.forecast.invoke({ cty: "Oslo" });`,
      /'cty' does not exist|Property 'city' is missing/,
    ],
    [
      "an extra parameter",
      `await cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo", hourly: true });`,
      /'hourly' does not exist/,
    ],
    [
      "a wrong parameter type",
      `await cyrnel.services.weather.tools.forecast.invoke({ city: 42 });`,
      /number' is not assignable to type 'string'/,
    ],
    [
      "a value outside an enum",
      `await cyrnel.services.weather.tools.forecast.invoke({ city: "x", units: "kelvin" });`,
      /"kelvin"/,
    ],
    [
      "a missing nested required field",
      `await cyrnel.services.petstore.tools.addPet.invoke({ body: { name: "Rex" } });`,
      /photoUrls/,
    ],
    ["an unknown tool", `await cyrnel.services.weather.tools.hourly.invoke({});`, /'hourly' does not exist/],
    ["an unknown service", `await cyrnel.services.nope.tools.x.invoke({});`, /'nope' does not exist/],
    [
      "misusing the result",
      `const f = await cyrnel.services.weather.tools.forecast.invoke({ city: "x" }); f.days.push("hot");`,
      /not assignable/,
    ],
    ["a non-object output", `cyrnel.output("text");`, /not assignable/],
    ["Node globals", `process.exit(1);`, /Cannot find name 'process'/],
  ])("rejects %s", (_label, code, message) => {
    const errors = check(code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(message);
  });

  it("types a tool the service's policy denies so that calling it is an error, and says so in the index", () => {
    const denied = renderTypes([{ ...WEATHER_FORECAST, policy: "deny" }, PETSTORE_ADD_PET, NO_PARAMS]);
    expect(denied).toContain(
      'readonly weather: { readonly tools: Omit<CyrnelServices.weather["tools"], "forecast"> & { readonly forecast: CyrnelDeniedTool<"weather", "forecast"> } };',
    );
    const errors = typeErrors({
      "cyrnel.d.ts": denied,
      "main.ts": `async function main() {\nawait cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo" });\n}\nvoid main;\n`,
    });
    expect(errors.join("\n")).toMatch(
      /Property 'invoke' does not exist on type 'CyrnelDeniedTool<"weather", "forecast">'/,
    );
    const index = renderTypes([{ ...WEATHER_FORECAST, policy: "deny" }, NO_PARAMS], { maxChars: 600 });
    expect(index).toContain("//   forecast: denied by the service's policy (every call fails with 403 tool_denied)");
  });

  it("marks a tool whose secret is not set in its doc comment and in the index, and still types its calls", () => {
    const missing = { ...WEATHER_FORECAST, missingSecrets: [["api_key"], ["user", "password"]] };
    const text = renderTypes([missing, PETSTORE_ADD_PET]);
    expect(text).toContain(
      'Not callable yet: it needs the secret "api_key" or "user" + "password" of service "weather", which is not set; calls fail until an operator sets it.',
    );
    expect(text.match(/Not callable yet/g)).toHaveLength(1);
    const errors = typeErrors({
      "cyrnel.d.ts": text,
      "main.ts": `async function main() {\nawait cyrnel.services.weather.tools.forecast.invoke({ city: "Oslo" });\n}\nvoid main;\n`,
    });
    expect(errors).toEqual([]);
    const index = renderTypes([missing, NO_PARAMS], { maxChars: 700 });
    expect(index).toContain(
      '//   not callable yet (every tool): needs the secret "api_key" or "user" + "password", not set; calls fail until an operator sets it',
    );
    const some = renderTypes([missing, { ...NO_PARAMS, serviceId: "weather" }], { maxChars: 700 });
    expect(some).toContain("//   not callable yet (forecast): needs");
  });

  it("declares nothing but the surface for an empty tool list", () => {
    const empty = renderTypes([]);
    expect(
      typeErrors({
        "cyrnel.d.ts": empty,
        "main.ts": "async function main() { cyrnel.output({ a: 1 }); }\nvoid main;\n",
      }),
    ).toEqual([]);
    expect(empty).toContain("readonly services: {\n  };");
  });

  it("stays valid for ids that are not identifiers or are reserved words, and tools with colliding $defs names", () => {
    const odd = renderTypes([
      { ...WEATHER_FORECAST, serviceId: "my-service", toolId: "get.thing" },
      { ...PETSTORE_ADD_PET, toolId: "Input" },
      { ...NO_PARAMS, serviceId: "class", toolId: "default" },
    ]);
    expect(typeErrors({ "cyrnel.d.ts": odd })).toEqual([]);
    expect(
      typeErrors({
        "cyrnel.d.ts": odd,
        "main.ts": `async function main() {
          await cyrnel.services["my-service"].tools["get.thing"].invoke({ city: "x" });
          const now: string = await cyrnel.services.class.tools.default.invoke({});
          void now;
        }\nvoid main;\n`,
      }),
    ).toEqual([]);
  });
});

/** Two tools of one service carrying the same definitions in their own `$defs`, as adapters emit them. */
const SHARED = (toolId: string, extra: Record<string, unknown> = {}) => ({
  serviceId: "shop",
  toolId,
  description: `<p>Tool <b>${toolId}</b>.</p>`,
  inputSchema: {
    type: "object",
    properties: { to: { $ref: "#/$defs/Address" }, ...extra },
    required: ["to"],
    $defs: { Address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  },
  outputSchema: {
    "x-cyrnel-name": "Order",
    type: "object",
    properties: { id: { type: "string" }, shipTo: { $ref: "#/$defs/Address" } },
    required: ["id"],
    $defs: { Address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  },
});

describe("renderTypes: named types once per service", () => {
  const tools = [SHARED("ship"), SHARED("quote", { express: { type: "boolean" } })];
  const shared = renderTypes(tools);

  it("declares each named type of a service once and refers to it by name", () => {
    expect(shared.match(/type Address = /g)).toHaveLength(1);
    expect(shared.match(/type Order = /g)).toHaveLength(1);
    expect(shared).toContain("type Output = Order;");
    expect(shared).toContain("/** Tool **ship**. */");
    expect(
      typeErrors({
        "cyrnel.d.ts": shared,
        "main.ts": `async function main() {
          const order = await cyrnel.services.shop.tools.ship.invoke({ to: { city: "Oslo" } });
          const again: CyrnelTools.shop.Order = await cyrnel.services.shop.tools.quote.invoke({ to: order.shipTo ?? { city: "x" }, express: true });
          const city: string | undefined = again.shipTo?.city;
          void city;
        }\nvoid main;\n`,
      }),
    ).toEqual([]);
  });

  it("is the same text for the same tools in any order", () => {
    expect(renderTypes([...tools].reverse())).toBe(shared);
  });
});

describe("renderTypes: the index instead of declarations that are too long", () => {
  const tools = [
    SHARED("ship"),
    SHARED("quote"),
    WEATHER_FORECAST,
    PETSTORE_ADD_PET,
    ...Array.from({ length: 30 }, (_, i) => ({ ...NO_PARAMS, toolId: `now${i}` })),
  ];
  const full = renderTypes(tools);
  const hint = "Narrow it: ?serviceId=<id> or ?tool=<serviceId>/<toolId>.";

  it("returns the declarations when they fit", () => {
    expect(renderTypes(tools, { maxChars: full.length, narrowHint: hint })).toBe(full);
  });

  it("returns an index with signatures, the hint and why, as comments only", () => {
    const index = renderTypes(tools, { maxChars: full.length - 1, narrowHint: hint });
    expect(index.length).toBeLessThan(full.length);
    expect(index).toContain(
      `// An index, not the declarations: the types of these 34 tools are ${full.length.toLocaleString("en-US")} characters, more than the ${(full.length - 1).toLocaleString("en-US")} one answer may have.`,
    );
    expect(index).toContain(`// ${hint}`);
    expect(index).toContain(
      "// shop (2 tools)\n//   quote(params: { to: Address; }) → Order\n//   ship(params: { to: Address; }) → Order",
    );
    expect(index).toContain(
      '//   addPet(params: { body: Pet; dryRun?: boolean; mode?: "fast" | "safe"; }) → Pet2 | null',
    );
    expect(index.split("\n").every((line) => line === "" || line.startsWith("//"))).toBe(true);
    expect(typeErrors({ "cyrnel.d.ts": index })).toEqual([]);
  });

  it("shows less, step by step, when even the index is too long, and never more than maxChars", () => {
    const forms = [
      "//   addPet(params: { body: Pet; dryRun?: boolean;",
      "//   addPet(params: { body, dryRun?, mode? }) → Pet2 | null",
      "// petstore (1 tool): addPet",
      "// The services (not even their tool ids fit):",
    ];
    const seen: number[] = [];
    for (let maxChars = full.length - 1; maxChars >= 300; maxChars -= 25) {
      const index = renderTypes(tools, { maxChars, narrowHint: hint });
      expect(index.length).toBeLessThanOrEqual(maxChars);
      expect(index).toContain(`// ${hint}`);
      const form = forms.findIndex((text) => index.includes(text));
      expect(form).toBeGreaterThanOrEqual(seen.at(-1) ?? 0);
      seen.push(form);
    }
    expect(new Set(seen)).toEqual(new Set([0, 1, 2, 3]));
  });
});
