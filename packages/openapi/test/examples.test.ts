import { isValidIdentifier, type ServiceDefinition } from "@cyrnel/sdk";
import { describe, expect, it } from "vitest";
import { instantiate } from "../src/index.js";
import { hostAjv } from "./helpers/ajv.js";
import { exampleFiles, readExample } from "./helpers/examples.js";

/**
 * Every document shipped by @readme/oas-examples installs, and every schema
 * of every tool compiles in an ajv configured like the host's. Documents
 * that are genuinely invalid are listed here with the reason.
 */
const REJECTED: Record<string, { reason: string; message: RegExp }> = {
  "3.0/json/openapi-workshop/post.json": {
    reason: "an operation has an empty `responses` object; OpenAPI 3.0 requires at least one response",
    message: /^Invalid OpenAPI document: #\/paths\/~1hoot\/post\/responses must NOT have fewer than 1 properties$/,
  },
};

const files = exampleFiles();
const adapter = instantiate();

describe("@readme/oas-examples", () => {
  it("finds the documents of every version in JSON and YAML", () => {
    expect(files.length).toBeGreaterThan(120);
    for (const prefix of ["2.0/json/", "2.0/yaml/", "3.0/json/", "3.0/yaml/", "3.1/json/", "3.1/yaml/"]) {
      expect(files.some((file) => file.startsWith(prefix))).toBe(true);
    }
    for (const file of Object.keys(REJECTED)) expect(files).toContain(file);
  });

  it.each(files.filter((file) => REJECTED[file] === undefined))(
    "%s installs and every schema compiles",
    async (file) => {
      const definition: ServiceDefinition = await adapter.generateDefinition(readExample(file));
      const ajv = hostAjv();

      expect(definition.name).not.toBe("");
      expect(definition.description).not.toBe("");
      ajv.compile(definition.configSchema);
      ajv.compile(definition.secretsSchema);

      const ids = definition.tools.map((tool) => tool.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const tool of definition.tools) {
        expect(isValidIdentifier(tool.id), tool.id).toBe(true);
        expect(tool.name, tool.id).not.toBe("");
        expect(tool.description, tool.id).not.toBe("");
        expect(tool.inputSchema.type, tool.id).toBe("object");
        for (const schema of [tool.inputSchema, tool.outputSchema]) {
          expect(() => ajv.compile(schema), `${tool.id}: ${JSON.stringify(schema).slice(0, 300)}`).not.toThrow();
        }
      }
      // The host persists definitions as JSON: nothing may be lost in a round trip.
      expect(JSON.parse(JSON.stringify(definition))).toEqual(definition);
    },
  );

  it.each(Object.entries(REJECTED))("%s is rejected (%s)", async (file, { message }) => {
    await expect(adapter.generateDefinition(readExample(file))).rejects.toThrow(message);
  });

  it.each(["2.0/%s/petstore", "3.0/%s/petstore", "3.1/%s/petstore", "3.0/%s/parameters-style", "3.0/%s/circular"])(
    "%s gives the same definition from JSON and YAML",
    async (pattern) => {
      const fromJson = await adapter.generateDefinition(readExample(`${pattern.replace("%s", "json")}.json`));
      const fromYaml = await adapter.generateDefinition(readExample(`${pattern.replace("%s", "yaml")}.yaml`));
      expect(fromYaml).toEqual(fromJson);
    },
  );
});

describe("circular documents produce recursive schemas ajv compiles and runs to an answer", () => {
  it.each([
    ["3.0/json/schema-circular.json"],
    ["3.0/json/circular-request-bodies.json"],
    ["3.0/json/circular-paths.json"],
    ["2.0/json/schema-circular.json"],
  ])("%s", async (file) => {
    const definition = await adapter.generateDefinition(readExample(file));
    const ajv = hostAjv();
    const recursive = definition.tools.filter((tool) => JSON.stringify(tool).includes('"$ref":"#/$defs/'));
    expect(recursive.length).toBeGreaterThan(0);
    // A $defs cycle that never reaches a schema would recurse until the stack overflows.
    for (const tool of recursive) {
      const validateInput = ajv.compile(tool.inputSchema);
      expect(() => validateInput({}), tool.id).not.toThrow();
      const validateOutput = ajv.compile(tool.outputSchema);
      expect(() => validateOutput({}), tool.id).not.toThrow();
    }
  });
});
