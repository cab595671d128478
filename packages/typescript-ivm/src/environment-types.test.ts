import type { ToolDocsInput } from "@cyrnel/sdk";
import { describe, expect, it } from "vitest";
import { NO_PARAMS, PETSTORE_ADD_PET, WEATHER_FORECAST } from "./docs/fixtures.test-data.js";
import { instantiate } from "./index.js";
import { MAX_INLINE_RENDER_CHARS } from "./supervisor/checker-thread.js";
import { turnsDuring } from "./turns.test-data.js";

/** `count` tools of a service whose input schemas each hold `chars` characters of description: a large API's. */
function largeTools(count: number, chars: number): ToolDocsInput[] {
  return Array.from({ length: count }, (_, index) => ({
    serviceId: "big",
    toolId: `op${index}`,
    description: `Operation ${index}.`,
    inputSchema: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string", description: `The id. ${"x".repeat(chars)}` }, note: { type: "string" } },
    },
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    policy: index === 1 ? "deny" : "allow",
    ...(index === 2 && { missingSecrets: [["token"]] }),
  }));
}

/** The JSON text of `tools` in parts cut anywhere (as a host hands it over: consecutive slices of one array). */
function inParts(tools: readonly ToolDocsInput[], parts: number): string[] {
  const json = JSON.stringify(tools);
  const size = Math.ceil(json.length / parts);
  return Array.from({ length: parts }, (_, index) => json.slice(index * size, (index + 1) * size));
}

describe("generateTypesFromJson", () => {
  const environment = instantiate();

  it("answers what generateTypes answers for the same small tools, whole or in parts, with or without maxChars", async () => {
    const tools = [PETSTORE_ADD_PET, WEATHER_FORECAST, NO_PARAMS];
    for (const options of [undefined, { maxChars: 600, narrowHint: "Ask for fewer." }]) {
      const expected = await environment.generateTypes!(tools, options);
      expect(await environment.generateTypesFromJson!(JSON.stringify(tools), options)).toBe(expected);
      expect(await environment.generateTypesFromJson!(inParts(tools, 5), options)).toBe(expected);
    }
  });

  it("renders a large API's tools in a render thread, into the same text, while the event loop runs", async () => {
    const tools = largeTools(12, 100_000);
    const parts = inParts(tools, 30);
    expect(parts.join("").length).toBeGreaterThan(4 * MAX_INLINE_RENDER_CHARS);
    const options = { maxChars: 4_000_000, narrowHint: "Ask for fewer." };
    const expected = await environment.generateTypes!(tools, options);
    expect(expected).toContain("op11");
    const { result, turns } = await turnsDuring(() => environment.generateTypesFromJson!(parts, options));
    expect(result).toBe(expected);
    // Parsing and rendering 1.2 MB of schemas on this thread would let no turn through; in a thread, many go by.
    expect(turns).toBeGreaterThanOrEqual(5);
    // What the tools' entries say besides their schemas reaches the declarations: the denied tool, the missing secret.
    expect(result).toMatch(/CyrnelDeniedTool<"big", "op1">/);
    expect(result).toContain("token");
  });

  it("rejects with the reason when the thread cannot render (the environment then answers an error, not a crash)", async () => {
    const torn = instantiate();
    const pending = torn.generateTypesFromJson!(inParts(largeTools(12, 100_000), 4));
    await torn.teardown();
    await expect(pending).rejects.toThrow(/torn down/);
  });
});
