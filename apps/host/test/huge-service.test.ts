import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";

/**
 * A service too large to type whole, through the built host. A review
 * installed Microsoft Graph beta (22,361 tools, 47 MB of OpenAPI): asking
 * for its types took the host out of memory, and its declarations were
 * longer than V8's longest string, so every program ran unchecked. Here a
 * generated definition of the same shape — tens of thousands of tools,
 * each carrying its schemas — stands in for it, with the types budget
 * (CYRNEL_TYPES_BUDGET_CHARS) lowered so that the service is several times
 * over it while the test stays light; what is asserted is the behaviour at
 * the budget, which does not depend on where it is set.
 */
const TOOLS = 20_000;
const BUDGET_CHARS = 4 * 1024 * 1024;

/** An OpenAPI document with `tools` operations, each taking and answering a record of a dozen described fields. */
function hugeDefinition(tools: number): string {
  const properties = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [`field${i}`, { type: "string", description: `Field ${i} of the record.` }]),
  );
  const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < tools; i++) {
    paths[`/records/${i}`] = {
      post: {
        operationId: `op${i}`,
        summary: `Operation ${i}`,
        requestBody: { required: true, content: json("Input") },
        responses: { 200: { description: "The record", content: json("Record") } },
      },
    };
  }
  return JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Huge", version: "1" },
    servers: [{ url: "http://127.0.0.1:9" }],
    paths,
    components: {
      schemas: {
        Input: {
          type: "object",
          required: ["count"],
          properties: { count: { type: "integer" }, record: { $ref: "#/components/schemas/Record" } },
        },
        Record: { type: "object", properties },
      },
    },
  });
}

let host: TestHost;
let installed: { status: number; text: string; body: any };

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_TYPES_BUDGET_CHARS: String(BUDGET_CHARS) } });
  // A checker with a small heap: whole declarations of this service would not fit in it; those of a few tools do.
  const config = await host.api("PATCH", "/modules/typescript-ivm/config", { typecheckMemoryMb: 96 });
  expect(config.status, config.text).toBe(200);
  installed = await host.api("POST", "/services", {
    id: "huge",
    adapter: "openapi",
    definition: hugeDefinition(TOOLS),
    enabled: true,
  });
}, 300_000);
afterAll(async () => {
  await host?.stop();
});

describe("a service whose types exceed the budget", () => {
  it("installs, and the install says its types are too large to make whole", () => {
    expect(installed.status, installed.text.slice(0, 500)).toBe(201);
    expect(installed.body.toolCount).toBe(TOOLS);
    expect(installed.body.typesNote).toMatch(
      /^The types of this service's 20,000 tools would be made from [\d,]+ characters of JSON Schema, more than the 4,194,304 one answer may be made from \(CYRNEL_TYPES_BUDGET_CHARS\)/,
    );
  });

  it("its record says so too, for as long as it is true", async () => {
    const record = await host.api("GET", "/services/huge");
    expect(record.status).toBe(200);
    expect(record.body.typesNote).toBe(installed.body.typesNote);
  });

  it.each([
    ["its types", "/environment/types?serviceId=huge"],
    ["every service's types", "/environment/types"],
  ])("GET %s answers 413 types_too_large naming the budget, and the host stays up", async (_label, path) => {
    const response = await host.api("GET", path);
    expect(response.status, response.text.slice(0, 500)).toBe(413);
    expect(response.body.code).toBe("types_too_large");
    expect(response.body.error).toMatch(
      /^the types of 20,000 tools of service "huge" would be made from [\d,]+ characters of JSON Schema, more than the 4,194,304 one answer may be made from \(CYRNEL_TYPES_BUDGET_CHARS\)\. Ask for fewer/,
    );
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("answers the types of the tools asked for by name", async () => {
    const response = await host.api("GET", "/environment/types?tool=huge/op123&tool=huge/op19999");
    expect(response.status, response.text.slice(0, 500)).toBe(200);
    expect(response.text).toContain("readonly op123: CyrnelTool<CyrnelTools.huge.op123.Input, ");
    expect(response.text).toContain("readonly op19999:");
    expect(response.text).not.toContain("readonly op124:");
  });

  it("type-checks a program against the tools it names: a misuse of one is reported, nothing runs unchecked", async () => {
    const wrong = await host.api("POST", "/processes", {
      code: `const record = await cyrnel.services.huge.tools.op123.invoke({ body: { count: "3" } });\nconsole.log(record.field1);`,
      block: true,
    });
    expect(wrong.status, wrong.text).toBe(201);
    expect(wrong.body.exitState, wrong.text).toBe("failed");
    expect(wrong.body.error).toMatch(
      /^Type check failed with 1 type error, so the code did not run:\ncode\.ts:1:\d+ TS2322 Type 'string' is not assignable to type 'number'\./,
    );
    expect(wrong.body.stderr).toBe("");
  }, 120_000);
});
