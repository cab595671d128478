import type { ToolDocsInput } from "@cyrnel/sdk";
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

  it.each([
    [undefined, "**Policy: `allow`** — calls run at once."],
    ["allow", "**Policy: `allow`** — calls run at once."],
    ["ask", "**Policy: `ask`** — every call waits until an operator approves or denies it"],
    ["deny", "**Policy: `deny`** — every call is refused with `tool_denied` (403)"],
  ] as const)("says what policy %s means for a call, under the description", (policy, line) => {
    const text = renderToolDocs({ ...PETSTORE_ADD_PET, ...(policy && { policy }) });
    expect(text.startsWith(`# \`petstore.addPet\`\n\nAdd a new pet to the store.\n\n${line}`)).toBe(true);
  });

  it("says, under the policy, that a tool cannot be called until a secret it needs is set", () => {
    const text = renderToolDocs({ ...PETSTORE_ADD_PET, missingSecrets: [["petstore_auth"]] });
    expect(text).toContain(
      '**Policy: `allow`** — calls run at once.\n\n**Not callable yet: it needs the secret "petstore_auth" of service "petstore", which is not set; calls fail until an operator sets it.**\n',
    );
    expect(page).not.toContain("Not callable yet");
  });

  it("names the effects the annotations claim, and no others", () => {
    const text = renderToolDocs({
      ...PETSTORE_ADD_PET,
      annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
    });
    expect(text).toContain("calls run at once. Effect: destructive, idempotent, reaches an outside service.\n");
    expect(page).not.toContain("Effect:");
  });

  it("has the title, description and a copy-pasteable snippet with the required parameters", () => {
    expect(page.startsWith("# `petstore.addPet`\n\nAdd a new pet to the store.\n")).toBe(true);
    expect(page).toContain("`tool_denied`, `approval_denied`,\n`approval_expired`");
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

  it("lists parameters with types, required flags, enums and constraints; named types by name", () => {
    expect(page).toContain("| `body` | `Pet` | yes | The pet to add. |");
    expect(page).not.toContain("`body.name`");
    expect(page).toContain("| `dryRun` | `boolean` | no | Validate only. Default: `false`. |");
    expect(page).toContain('| `mode` | `"fast" \\| "safe"` | no | Write \\| mode. One of: `"fast"`, `"safe"`. |');
  });

  it("shows the return shape and declares each named type once (different ones of one name apart)", () => {
    expect(page).toContain(["```ts", "type Output = Pet2 | null;", "```"].join("\n"));
    expect(page).toContain(
      [
        "## Types",
        "",
        "```ts",
        "type Pet = {",
        "  /** @format int64 */",
        "  id?: number;",
        "  name: string;",
        "  photoUrls: string[];",
        "  tags?: Tag[];",
        '  status?: "available" | "pending" | "sold" | null;',
        "  parent?: Pet;",
        "  attributes?: {",
        "    [key: string]: string;",
        "  };",
        "};",
        "type Pet2 = {",
        "  id: number;",
        "  name: string;",
        "  meta?: {",
        "    /** @format date-time */",
        "    created?: string;",
        "  } & {",
        "    version?: number | string;",
        "  };",
        "};",
        "type Tag = {",
        "  id?: number;",
        "  name?: string;",
        "};",
        "```",
      ].join("\n"),
    );
    expect(page.match(/^type Pet = /gm)).toHaveLength(1);
  });

  it("points to the runtime reference for errors instead of repeating the table", () => {
    expect(page).not.toContain("| 409 |");
    expect(page).toContain("`status` and `code`");
    expect(page).toContain("`tool_disabled`");
    expect(page).toContain("runtime reference");
  });

  it("turns an HTML description into Markdown", () => {
    const html = renderToolDocs({
      ...NO_PARAMS,
      description: '<p>Creates a <a href="/docs/pi">PaymentIntent</a>.</p><p>Use <code>confirm=true</code>.</p>',
    });
    expect(html).toContain("Creates a [PaymentIntent](/docs/pi).\n\nUse `confirm=true`.");
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

/** A result with a chain of named types A → B → C → D, and a wide parameter list. */
const CHAIN: ToolDocsInput = {
  serviceId: "svc",
  toolId: "chain",
  description: "Chained types.",
  inputSchema: {
    type: "object",
    properties: {
      deep: {
        type: "object",
        properties: {
          one: { type: "object", properties: { two: { type: "object", properties: { three: { type: "string" } } } } },
        },
      },
    },
  },
  outputSchema: {
    $ref: "#/$defs/A",
    $defs: {
      A: {
        type: "object",
        properties: { b: { $ref: "#/$defs/B" }, note: { type: "string", description: "x".repeat(400) } },
      },
      B: { type: "object", properties: { c: { $ref: "#/$defs/C" } } },
      C: { type: "object", properties: { d: { $ref: "#/$defs/D" } } },
      D: { type: "object", properties: { value: { type: "integer", minimum: 0 } } },
    },
  },
};

describe("renderToolDocs: bounded depth and expand", () => {
  it("declares the named types near the result and names the farther ones", () => {
    const chain = renderToolDocs(CHAIN);
    expect(chain).toContain("type Output = A;");
    expect(chain).toMatch(/^type A = /m);
    expect(chain).toMatch(/^type B = /m);
    expect(chain).toMatch(/^type C = /m);
    expect(chain).not.toMatch(/^type D = /m);
    expect(chain).toContain(
      "More types it uses (not declared here): `D`. To see one, ask for this page again with `expand` set to its name.",
    );
    expect(chain).toContain("| `deep.one.two.three` | `string` | no |  |");
  });

  it("shows less, step by step, to fit maxChars, and says how to see the rest", () => {
    const full = renderToolDocs(CHAIN);
    const hint = "ask again with `?expand=<Type>`";
    const short = renderToolDocs(CHAIN, { maxChars: full.length - 200, expandHint: hint });
    expect(short.length).toBeLessThanOrEqual(full.length - 200);
    expect(short).toContain(`To see one, ${hint}.`);
    const shortest = renderToolDocs(CHAIN, { maxChars: 900, expandHint: hint });
    expect(shortest.length).toBeLessThanOrEqual(900);
    expect(shortest).not.toMatch(/^type A = /m);
    expect(shortest).toContain("Types it uses (not declared here): `A`, `B`, `C`, `D`.");
    expect(shortest).toContain("the whole parameter type is `Input`");
    const cut = renderToolDocs(CHAIN, { maxChars: 300 });
    expect(cut.length).toBeLessThanOrEqual(300);
    expect(cut).toContain("[cut: the rest does not fit in 300 characters]");
  });

  it("expands one named type, Input or Output in full", () => {
    const d = renderToolDocs(CHAIN, { expand: "C" });
    expect(d).toContain("# `svc.chain`: `C`");
    expect(d).toContain(
      [
        "```ts",
        "type C = {",
        "  d?: D;",
        "};",
        "type D = {",
        "  /** @minimum 0 */",
        "  value?: number;",
        "};",
        "```",
      ].join("\n"),
    );
    expect(renderToolDocs(CHAIN, { expand: "Input" })).toContain(
      "type Input = {\n  deep?: {\n    one?: {\n      two?: {",
    );
    expect(renderToolDocs(CHAIN, { expand: "Output" })).toContain("type Output = A;\ntype A = {\n  b?: B;");
  });

  it("rejects an expand that names no type of the page, with code not_found and the names it has", () => {
    expect(() => renderToolDocs(CHAIN, { expand: "Nope" })).toThrow(
      expect.objectContaining({
        code: "not_found",
        message: 'type "Nope" is not on the page of svc.chain; its types: Input, Output, A, B, C, D',
      }),
    );
  });
});
