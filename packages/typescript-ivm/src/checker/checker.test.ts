import type { JSONSchema, ToolDocsInput } from "@cyrnel/sdk";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { renderServiceFile } from "../docs/types-file.js";
import { bindSourceFile, Checker, COMPILER_OPTIONS } from "./checker.js";

/** The checker itself, in this thread (the environment runs it in a worker thread of its own). */
const tool = (toolId: string, inputSchema: JSONSchema, outputSchema: JSONSchema = {}): ToolDocsInput => ({
  serviceId: "shop",
  toolId,
  description: "",
  inputSchema,
  outputSchema,
});
const SHOP = [
  tool(
    "getItem",
    { type: "object", required: ["id"], properties: { id: { type: "string" } } },
    {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, price: { type: ["number", "null"] } },
    },
  ),
  tool("listItems", { type: "object", properties: { limit: { type: "integer" } } }, { type: "array", items: {} }),
];

const checker = new Checker();
const shopAt = (tools: string[]) => [{ serviceId: "shop", tools, declared: true }];
const ALL = shopAt(["getItem", "listItems"]);
/** `line:column TScode` per error. */
const errors = (code: string, services = ALL) =>
  (checker.check([code], services)[0] ?? []).map((e) => `${e.line}:${e.column} TS${e.code}`);

beforeAll(() => {
  const { namespace, tools, text } = renderServiceFile("shop", SHOP);
  checker.declare("shop", namespace, tools, text);
});

describe("Checker", () => {
  it("checks code as the body of an async function: top-level await and return", () => {
    expect(
      errors(`const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });\nreturn item.id;`),
    ).toEqual([]);
  });

  it("is strict: a nullable result must be checked before use", () => {
    const code = `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });\nconst p: number = item.price;`;
    expect(errors(code)).toEqual(["2:7 TS2322"]);
    expect(errors(code.replace("item.price;", "item.price ?? 0;"))).toEqual([]);
  });

  it("types a caught value as any, as LLM-written code expects (e.message)", () => {
    expect(
      errors(
        `try { await cyrnel.services.shop.tools.getItem.invoke({ id: "1" }); } catch (e) { console.log(e.message, e.status); }`,
      ),
    ).toEqual([]);
  });

  it("accepts the usual sleep: a promise resolved by setTimeout with no arguments", () => {
    expect(
      errors(`await new Promise((resolve) => setTimeout(resolve, 10));\nawait new Promise((r) => setTimeout(r));`),
    ).toEqual([]);
  });

  it("has the sandbox's library (ES2023) and runtime surface, and no DOM or Node globals", () => {
    expect(
      errors(`const sorted = [3, 1].toSorted((a, b) => a - b).findLast((n) => n > 0);
const id = setTimeout((x: string) => console.log(x), 10, "a");
await new Promise((resolve) => setTimeout(resolve, 10));
await new Promise<void>((resolve) => setTimeout(resolve, 10));
clearTimeout(id);
cyrnel.output({ sorted });
const keys: string[] = Object.keys(cyrnel.services);
const bytes: Uint8Array = new TextEncoder().encode(atob(btoa("hi")));
const text: string = new TextDecoder("utf-8", { fatal: true }).decode(bytes.buffer);
const copy: { a: number[] } = structuredClone({ a: [1] });`),
    ).toEqual([]);
    expect(errors(`document.title;\nprocess.exit(1);\nconst r = await fetch("x");\nrequire("fs");`)).toEqual([
      "1:1 TS2584",
      "2:1 TS2591",
      "3:17 TS2304",
      "4:1 TS2591",
    ]);
  });

  it("says what the sandbox is for a missing global or module, instead of pointing at npm or a tsconfig", () => {
    const messages = (
      checker.check([`document.title;\nprocess.exit(1);\nrequire("fs");\nimport("os");`], ALL)[0] ?? []
    ).map((e) => e.message);
    expect(messages).toHaveLength(5);
    for (const message of messages) {
      expect(message).not.toMatch(/npm|@types|tsconfig|compiler option/);
      expect(message).toContain("cyrnel.services.<serviceId>.tools.<toolId>.invoke");
    }
    expect(messages[0]).toMatch(/^Cannot find name 'document': the sandbox is neither Node\.js nor a browser/);
    expect(messages[1]).toMatch(/^Cannot find name 'process'/);
    expect(messages[2]).toMatch(/^Cannot find name 'require'/);
    expect(messages[3]).toMatch(/^Cannot import a module: the sandbox cannot import or require modules/);
    expect(messages[4]).toMatch(/^Cannot find module 'os': the sandbox cannot import or require modules/);
  });

  it("offers only the tools the run can reach (a narrower list than the declarations)", () => {
    const code = `await cyrnel.services.shop.tools.listItems.invoke({});`;
    expect(errors(code, shopAt(["getItem"]))).toEqual(["1:34 TS2339"]);
    expect(errors(code, shopAt([]))).toEqual(["1:34 TS2339"]);
    expect(errors(code)).toEqual([]);
  });

  it("types a service without declarations as any, and one the run cannot reach not at all", () => {
    expect(
      errors(`await cyrnel.services.other.tools.anything.invoke(1);`, [
        { serviceId: "other", tools: [], declared: false },
      ]),
    ).toEqual([]);
    expect(errors(`await cyrnel.services.shop.tools.getItem.invoke({ id: "1" });`, [])).toEqual(["1:23 TS2339"]);
  });

  it("replaces a service's declarations when they are declared again", () => {
    const changed = renderServiceFile("shop", [
      tool("getItem", { type: "object", required: ["sku"], properties: { sku: { type: "string" } } }),
    ]);
    const second = new Checker();
    second.declare("shop", changed.namespace, changed.tools, changed.text);
    const code = `await cyrnel.services.shop.tools.getItem.invoke({ sku: "1" });`;
    expect(second.check([code], shopAt(["getItem"]))).toEqual([[]]);
    expect(checker.check([code], shopAt(["getItem"]))[0]?.map((e) => e.code)).toEqual([2353]);
  });

  it("reports only syntax errors when there are any", () => {
    expect(errors(`const a: number = "x";\nconst b = ;`)).toEqual(["2:11 TS1109"]);
  });

  it("checks several programs together, each in a scope of its own", () => {
    const programs = [
      `const x = 1;\nconst n: number = x;`,
      `const x = "a";\nconst n: number = x;`,
      `const item = await cyrnel.services.shop.tools.getItem.invoke({ id: 1 });`,
    ];
    const results = checker.check(programs, ALL).map((list) => list.map((e) => `${e.line}:${e.column} TS${e.code}`));
    expect(results).toEqual([[], ["2:7 TS2322"], ["1:64 TS2322"]]);
  });

  it("does not let code declare modules or import: they fail as they would at run time", () => {
    expect(errors(`import fs from "fs";`)).toEqual(["1:1 TS1232"]);
  });
});

describe("declaring a service", () => {
  it("binds its declarations with TypeScript's own binder, which the pinned TypeScript still has", () => {
    // Checker.declare binds each service's file ahead of the checks (the compiler keeps a binding with its file);
    // the binder is internal to TypeScript, so an upgrade without it would quietly move that cost into the first
    // check of each service again.
    expect(typeof bindSourceFile).toBe("function");
    const file = ts.createSourceFile(
      "/x.d.ts",
      "declare namespace X { interface Y { a: string } }",
      ts.ScriptTarget.ES2022,
    );
    bindSourceFile?.(file, COMPILER_OPTIONS);
    expect((file as unknown as { locals?: Map<string, unknown> }).locals?.has("X")).toBe(true);
  });
});
