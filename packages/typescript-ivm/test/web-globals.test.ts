import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeHost } from "./support/fake-host.js";

/**
 * The Web APIs the sandbox adds to ECMAScript (base64, UTF-8 text, structured clone), checked against Node's own
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

describe("web globals in the sandbox", () => {
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
});
