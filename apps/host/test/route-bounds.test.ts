import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, type TestHost } from "./support/host.js";

/**
 * Every route, on both databases, answers a 4xx — never a 500 — to path and
 * query values a database cannot take: ids and cursor numbers past
 * PostgreSQL's `integer`, and a NUL in any string (SQLite takes both, so
 * these once answered 200/404 there and 500 on PostgreSQL). The routes come
 * from the host's own `/openapi.json`, so a route added later is swept too.
 */
const API_KEY = "route-bounds-key";
const PAST_INT4 = ["2147483648", "9007199254740991", "99999999999999999999"];
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
const CURSORS = [
  base64url(2 ** 31),
  base64url(2 ** 40),
  base64url("a\u0000b"),
  base64url(["a\u0000", 1]),
  base64url(["a", 2 ** 31]),
  base64url(["a\u0000", "b"]),
  base64url({ rank: 2 ** 40 }),
];

interface Parameter {
  name: string;
  in: "path" | "query";
  schema: { type?: string; enum?: unknown[]; items?: { type?: string } };
}

let host: TestHost;
let operations: { method: string; path: string; parameters: Parameter[] }[] = [];

beforeAll(async () => {
  host = await startHost({ env: { CYRNEL_API_KEY: API_KEY } });
  const document = (await host.api("GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method, path, parameters: operation.parameters ?? [] })),
  );
});
afterAll(() => host?.stop());

/** A value the parameter's schema accepts, to fill the ones not under test. */
function ordinary(parameter: Parameter): string {
  if (parameter.schema.enum) return String(parameter.schema.enum[0]);
  if (parameter.schema.type === "integer" || parameter.schema.type === "number") return "1";
  if (parameter.schema.type === "boolean") return "false";
  return "x";
}

/** The request target with `value` for `under` (already encoded) and ordinary values for the other path parameters. */
function target(operation: (typeof operations)[number], under: Parameter, value: string): string {
  let path = operation.path;
  for (const parameter of operation.parameters.filter((one) => one.in === "path")) {
    path = path.replace(`{${parameter.name}}`, parameter === under ? value : encodeURIComponent(ordinary(parameter)));
  }
  return under.in === "query" ? `${path}?${under.name}=${value}` : path;
}

describe("values a database cannot take are refused, on every route", () => {
  it("ids and numbers past PostgreSQL's integer, a NUL in any string, and forged cursors: 4xx, never 500", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const operation of operations) {
      for (const parameter of operation.parameters) {
        const type = parameter.schema.type === "array" ? parameter.schema.items?.type : parameter.schema.type;
        const values =
          parameter.name === "cursor"
            ? CURSORS
            : type === "integer" || type === "number"
              ? PAST_INT4
              : type === "string" && !parameter.schema.enum
                ? ["a%00b", "%00"]
                : [];
        for (const value of values) {
          const path = target(operation, parameter, value);
          const answer = await host.api(
            operation.method.toUpperCase(),
            path,
            ["post", "put", "patch"].includes(operation.method) ? {} : undefined,
          );
          sent++;
          if (answer.status >= 500)
            failures.push(`${operation.method.toUpperCase()} ${path} → ${answer.status} ${answer.text}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(50);
    expect(failures).toEqual([]);
    expect((await host.api("GET", "/health")).status).toBe(200);
  });

  it("says which parameter and why", async () => {
    const id = await host.api("GET", `/processes/${PAST_INT4[0]}`);
    expect(id.status).toBe(400);
    expect(id.body.code).toBe("validation_failed");
    expect(id.body.error).toContain("must be <= 2147483647");
    const nul = await host.api("GET", "/tools?query=a%00b");
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ code: "validation_failed", error: expect.stringContaining('"query"') });
    const cursor = await host.api("GET", `/processes?cursor=${base64url(2 ** 40)}`);
    expect(cursor.status).toBe(400);
    expect(cursor.body.error).toContain("invalid cursor");
  });
});
