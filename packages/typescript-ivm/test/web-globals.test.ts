import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost } from "./support/fake-host.js";

/**
 * The Web APIs the sandbox adds to ECMAScript (base64, UTF-8 text, structured clone, URL, crypto's random values), checked against Node's own
 * implementations of the same standards on the same inputs.
 */
const host = new FakeHost();

beforeAll(async () => {
  await host.start({ maxExecutions: 2, memoryLimitMb: 64 });
});

afterAll(async () => {
  await host.stop();
});

const TEXT = "héllo wörld 🙂 \u0001 end";
const MALFORMED = [0x61, 0xff, 0xe2, 0x82, 0x62, 0xf0, 0x9f, 0x99, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0x63];

/** The same program in the sandbox and here (Node's URL and URLSearchParams): its results must be the same. */
const URL_PROGRAM = `
  const u = new URL("/a/../b/./c?x=1&y=%20z#frag", "https://user:pa ss@EXAMPLE.com:443/base/");
  const parts = [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash];
  u.searchParams.append("q", "a b&c=d/é🙂");
  const afterAppend = u.href;
  u.search = "?k=v&k=w";
  const params = [...u.searchParams];
  u.searchParams.delete("k", "v");
  const afterDelete = [u.href, u.search];
  u.searchParams.delete("k");
  const emptied = [u.href, u.search, u.searchParams.size];
  u.port = "8080"; u.hostname = "api.example.org"; u.hash = ""; u.pathname = "/v1/items";
  const set = u.href;
  u.port = "nope";
  const ignored = u.port;
  u.href = "http://other.example/x?y=1";
  const replaced = [u.href, u.searchParams.get("y")];
  let badHref = "";
  try { u.href = "no scheme"; } catch (e) { badHref = e.name; }
  const idn = new URL("http://münchen.de/ä?ö=ü").href;
  const ipv6 = new URL("http://[::1]:3000/").host;
  const file = new URL("file:///tmp/x").origin;
  let invalid = "";
  try { new URL("not a url"); } catch (e) { invalid = e.name; }
  const canParse = [URL.canParse("https://a"), URL.canParse("/x"), URL.canParse("/x", "https://a")];
  const p = new URLSearchParams({ b: "2", a: "1 +%", c: "ü" });
  p.append("a", "0");
  p.sort();
  const sorted = p.toString();
  const got = [p.get("a"), p.getAll("a"), p.has("a", "0"), p.has("a", "9"), p.get("zz"), p.size];
  p.set("a", "x");
  const setted = p.toString();
  const parsed = [...new URLSearchParams("?a=1&&b=%zz&c=%F0%9F%99%82&d+e=f+g&=h&i&j=%")];
  const fromPairs = new URLSearchParams([["x", "1"], ["y", "2"]]).toString();
  const copied = new URLSearchParams(new URLSearchParams("a=1")).toString();
  const visited = [];
  new URLSearchParams("a=1&b=2").forEach((value, name) => visited.push(name + ":" + value));
  const json = JSON.stringify({ u: new URL("https://a.b/c") });
  const text = String(new URL("https://a.b/c d"));
  cyrnel.output({
    parts, afterAppend, params, afterDelete, emptied, set, ignored, replaced, badHref, idn, ipv6, file, invalid,
    canParse, sorted, got, setted, parsed, fromPairs, copied, visited, json, text,
  });
`;

describe("web globals in the sandbox", () => {
  it("parse and build URLs and query strings as the WHATWG URL standard (and Node) does", async () => {
    const result = await host.run(URL_PROGRAM, { typecheck: false });
    expect(result.errors).toEqual([]);
    let expected: unknown;
    new Function("cyrnel", URL_PROGRAM)({ output: (value: unknown) => (expected = value) });
    expect(result.output).toEqual(expected);
    expect((result.output as { sorted: string }).sorted).toBe("a=1+%2B%25&a=0&b=2&c=%C3%BC");
  });

  it("declares URL and URLSearchParams for the type check", async () => {
    const typed = await host.run(
      `const u: URL = new URL("/items?page=2", "https://api.example.com");
      u.searchParams.set("page", String(Number(u.searchParams.get("page") ?? "1") + 1));
      const pairs: [string, string][] = [...new URLSearchParams({ q: "a b" })];
      cyrnel.output({ href: u.href, pairs, ok: URL.canParse(u.href) });`,
      { typecheck: true },
    );
    expect(typed.errors).toEqual([]);
    expect(typed.output).toEqual({
      href: "https://api.example.com/items?page=3",
      pairs: [["q", "a b"]],
      ok: true,
    });
    const wrong = await host.run("const n: number = new URL('https://a').port;", { typecheck: true });
    expect(wrong.errors[0]).toMatch(/TS2322 Type 'string' is not assignable to type 'number'/);
  });

  it("encode and decode base64 and UTF-8 as the standards (and Node) do", async () => {
    const result = await host.run(`
      const text = ${JSON.stringify(TEXT)};
      const bytes = new TextEncoder().encode(text);
      const b64 = btoa(String.fromCharCode(...bytes));
      const back = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
      const malformed = new TextDecoder().decode(new Uint8Array(${JSON.stringify(MALFORMED)}));
      const bom = new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]).buffer);
      const name = (run: () => unknown) => { try { run(); return "none"; } catch (e) { return e.name; } };
      const into = new Uint8Array(5);
      const read = new TextEncoder().encodeInto("aé🙂", into);
      cyrnel.output({
        bytes: [...bytes], b64, back, malformed, bom, into: [...into], read,
        fatal: name(() => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xc0]))),
        latin: name(() => btoa("🙂")),
        badBase64: name(() => atob("abc*")),
        oneTooMany: name(() => atob("abcde")),
        spaced: atob(" aGVs\\nbG8= "), unpadded: atob("aGk"), padded: btoa("hi"),
        label: name(() => new TextDecoder("latin1")),
      });
    `);
    expect(result.errors).toEqual([]);
    expect(result.exit).toBe("success");
    const into = new Uint8Array(5);
    const read = new TextEncoder().encodeInto("aé🙂", into);
    expect(result.output).toEqual({
      bytes: [...new TextEncoder().encode(TEXT)],
      b64: Buffer.from(TEXT).toString("base64"),
      back: TEXT,
      malformed: new TextDecoder().decode(new Uint8Array(MALFORMED)),
      bom: "a",
      into: [...into],
      read,
      fatal: "TypeError",
      latin: "InvalidCharacterError",
      badBase64: "InvalidCharacterError",
      oneTooMany: "InvalidCharacterError",
      spaced: "hello",
      unpadded: "hi",
      padded: "aGk=",
      label: "RangeError",
    });
  });

  it("clones plain data deeply with structuredClone, cycles kept, and refuses functions", async () => {
    const result = await host.run(`
      const source: any = {
        d: new Date(0), m: new Map([[1, { x: [1, 2] }]]), s: new Set(["a"]), re: /x/gi,
        u16: new Uint16Array([1, 2, 3]), nested: { deep: true }, list: [1, "two", null],
      };
      source.self = source;
      const copy = structuredClone(source);
      let refused = "";
      try { structuredClone({ f() {} }); } catch (e) { refused = e.name; }
      cyrnel.output({
        distinct: copy !== source && copy.nested !== source.nested && copy.m !== source.m,
        cycle: copy.self === copy,
        date: copy.d instanceof Date && copy.d.getTime(),
        map: copy.m.get(1).x, set: [...copy.s], re: String(copy.re),
        u16: copy.u16 instanceof Uint16Array && [...copy.u16], list: copy.list, refused,
      });
    `);
    expect(result.errors).toEqual([]);
    expect(result.output).toEqual({
      distinct: true,
      cycle: true,
      date: 0,
      map: [1, 2],
      set: ["a"],
      re: "/x/gi",
      u16: [1, 2, 3],
      list: [1, "two", null],
      refused: "DataCloneError",
    });
  });
  it("draws random values with crypto.getRandomValues and randomUUID, as Node's crypto refuses and shapes them", async () => {
    const program = `
      const names = [];
      for (const make of [() => new Float64Array(2), () => new DataView(new ArrayBuffer(4)), () => [1, 2], () => new Uint8Array(65537)]) {
        try { crypto.getRandomValues(make()); names.push("none"); } catch (e) { names.push(e.name); }
      }
      const big = crypto.getRandomValues(new BigUint64Array(2));
      const buffer = new ArrayBuffer(12);
      const middle = new Uint8Array(buffer, 4, 4);
      const same = crypto.getRandomValues(middle) === middle;
      const outside = [...new Uint8Array(buffer, 0, 4), ...new Uint8Array(buffer, 8, 4)];
      const full = crypto.getRandomValues(new Uint8Array(65536));
      const ids = new Set(Array.from({ length: 50 }, () => crypto.randomUUID()));
      const shape = [...ids].every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id));
      cyrnel.output({
        names, same, outside, ids: ids.size, shape, big: typeof big[0],
        distinct: new Set(full).size, tag: Object.prototype.toString.call(crypto),
      });
    `;
    const result = await host.run(program, { typecheck: false });
    expect(result.errors).toEqual([]);
    let expected: Record<string, unknown> = {};
    new Function("cyrnel", "crypto", program)(
      { output: (value: Record<string, unknown>) => (expected = value) },
      globalThis.crypto,
    );
    const output = result.output as Record<string, unknown>;
    // The same refusals as Node's (a DOMException there: its name is what programs test).
    expect(output.names).toEqual(expected.names);
    expect(output.names).toEqual(["TypeMismatchError", "TypeMismatchError", "TypeMismatchError", "QuotaExceededError"]);
    expect(output).toMatchObject({
      same: true,
      outside: [0, 0, 0, 0, 0, 0, 0, 0],
      ids: 50,
      shape: true,
      big: "bigint",
    });
    // 65,536 random bytes take every one of the 256 values.
    expect(output.distinct).toBe(256);
    expect(output.tag).toBe("[object Crypto]");
    const typed = await host.run(
      "const id: string = crypto.randomUUID(); const n: Uint8Array = crypto.getRandomValues(new Uint8Array(2)); cyrnel.output({ ok: id.length + n.length });",
      { typecheck: true },
    );
    expect(typed.errors).toEqual([]);
    expect(typed.output).toEqual({ ok: 38 });
    const wrong = await host.run("crypto.getRandomValues(new Float32Array(2));", { typecheck: true });
    expect(wrong.errors[0]).toMatch(/TS2345/);
  });
});
