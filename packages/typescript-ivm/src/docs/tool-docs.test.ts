import { describe, expect, it } from "vitest";
import { typeErrors } from "../../test/support/typecheck.js";
import { NO_PARAMS, PETSTORE_ADD_PET, WEATHER_FORECAST } from "./fixtures.test-data.js";
import { renderToolDocs, usageSnippet } from "./tool-docs.js";
import { renderTypes } from "./types-file.js";

describe("usageSnippet validates against the tool's own input schema", () => {
  const snippetFor = (inputSchema: Record<string, unknown>) =>
    usageSnippet({ serviceId: "svc", toolId: "t", description: "", inputSchema, outputSchema: {} });

  it('skips a document example that contradicts its schema (Azure Service Fabric\'s TypeFilter: "0xFF")', () => {
    const snippet = snippetFor({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { TypeFilter: { type: "integer", examples: ["0xFF", 65535] } },
      required: ["TypeFilter"],
      additionalProperties: false,
    });
    expect(snippet).toContain("TypeFilter: 65535,");
  });

  it("falls back to a generated value when no given value fits, $defs included", () => {
    const snippet = snippetFor({
      type: "object",
      properties: {
        kind: { $ref: "#/$defs/Kind", default: "1" },
        when: { type: "string", format: "date", example: "soon" },
      },
      required: ["kind", "when"],
      $defs: { Kind: { type: "integer", enum: [1, 3] } },
    });
    expect(snippet).toContain("kind: 1,");
    expect(snippet).toContain('when: "2024-01-01",');
  });

  it("keeps examples that fit", () => {
    expect(
      snippetFor({ type: "object", properties: { city: { type: "string", examples: ["Oslo"] } }, required: ["city"] }),
    ).toContain('city: "Oslo",');
  });
});

describe("renderToolDocs", () => {
  const page = renderToolDocs(PETSTORE_ADD_PET);

  it("has the title, description and a copy-pasteable snippet with the required parameters", () => {
    expect(page.startsWith("# `petstore.addPet`\n\nAdd a new pet to the store.\n")).toBe(true);
    expect(page).toContain(
      [
        "```ts",
        "const result = await cyrnel.services.petstore.tools.addPet.invoke({",
        "  body: {",
        '    name: "doggie",',
        "    photoUrls: [",
        '      "https://example.com",',
        "    ],",
        "  },",
        "});",
        "cyrnel.output({ result });",
        "```",
      ].join("\n"),
    );
  });

  it("lists parameters with nested objects expanded, types, required flags, enums and defaults", () => {
    expect(page).toContain("| `body` | `Pet` | yes | The pet to add. |");
    expect(page).toContain("| `body.name` | `string` | yes |  |");
    expect(page).toContain("| `body.id` | `integer` | no | Format: `int64`. |");
    expect(page).toContain("| `body.tags[].name` | `string` | no |  |");
    expect(page).toContain(
      '| `body.status` | `"available" \\| "pending" \\| "sold" \\| null` | no | One of: `"available"`, `"pending"`, `"sold"`, `null`. |',
    );
    expect(page).toContain("| `dryRun` | `boolean` | no | Validate only. Default: `false`. |");
    expect(page).toContain('| `mode` | `"fast" \\| "safe"` | no | Write \\| mode. One of: `"fast"`, `"safe"`. |');
  });

  it("shows the return shape from the output schema", () => {
    expect(page).toContain(
      [
        "```ts",
        "type Output = Pet | null;",
        "type Pet = {",
        "  id: number;",
        "  name: string;",
        "  meta?: {",
        "    created?: string;",
        "  } & {",
        "    version?: number | string;",
        "  };",
        "};",
        "```",
      ].join("\n"),
    );
  });

  it("documents the error shape", () => {
    expect(page).toContain("| 409 | `tool_disabled` | the tool is disabled |");
    expect(page).toContain("`status` and `code`");
  });

  it("handles tools without parameters or description", () => {
    const empty = renderToolDocs(NO_PARAMS);
    expect(empty).toContain("_No description._");
    expect(empty).toContain("This tool takes no parameters");
    expect(empty).toContain("const result = await cyrnel.services.clock.tools.now.invoke({});");
    expect(empty).toContain("type Output = string;");
  });

  it("produces snippets that type-check against the generated declarations", () => {
    const tools = [PETSTORE_ADD_PET, WEATHER_FORECAST, NO_PARAMS];
    const body = tools.map((tool, i) => `{ ${usageSnippet(tool)} void result; void ${i}; }`).join("\n");
    expect(
      typeErrors({ "cyrnel.d.ts": renderTypes(tools), "main.ts": `async function main() {\n${body}\n}\nvoid main;\n` }),
    ).toEqual([]);
  });
});
