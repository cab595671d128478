import { describe, expect, it } from "vitest";
import { typeErrors, typescriptVersion } from "../../test/support/typecheck.js";
import { NO_PARAMS, PETSTORE_ADD_PET, WEATHER_FORECAST } from "./fixtures.test-data.js";
import { renderTypes } from "./types-file.js";

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
      "readonly forecast: { invoke(params: CyrnelTools.weather.forecast.Input): Promise<CyrnelTools.weather.forecast.Output> };",
    );
    expect(declarations).toContain("declare function setTimeout<");
    expect(declarations).toContain("declare const console: {");
    expect(typeErrors({ "cyrnel.d.ts": declarations })).toEqual([]);
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
