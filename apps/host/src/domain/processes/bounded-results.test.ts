import { describe, expect, it } from "vitest";
import { boundTexts, cutMarker, jsonChars, type ResultTexts, sliceText } from "./bounded-results.js";

const texts = (partial: Partial<ResultTexts>): ResultTexts => ({
  stdout: "",
  stderr: "",
  output: "{}",
  error: "",
  ...partial,
});

/** What the texts take as JSON strings, which is what the limit bounds. */
const totalLength = (bounded: ResultTexts) => Object.values(bounded).reduce((sum, text) => sum + jsonChars(text), 0);

/** The text a cut stands for: the head, the pages from the marker's offset on (via sliceText), nothing else. */
function reassemble(shown: string, whole: string, pageChars: number): string {
  const offset = Number(/"offset":(\d+)\}/.exec(shown)?.[1]);
  let text = shown.slice(0, shown.indexOf("\n[… "));
  for (let next: number | null = offset; next !== null; ) {
    const page = sliceText(whole, next, pageChars);
    expect(page.offset).toBe(next);
    text += page.text;
    next = page.nextOffset;
  }
  return text;
}

describe("boundTexts", () => {
  it("keeps texts that fit whole and lists no cuts", () => {
    const small = texts({ stdout: "a\n", stderr: "b\n", output: '{"x":1}', error: "boom" });
    expect(boundTexts(7, small, 1_000)).toEqual({ texts: small, cuts: [] });
  });

  it("keeps short texts whole and gives the long ones equal shares with head, tail and a marker", () => {
    const stdout = `${"o".repeat(50_000)}END`;
    const output = `{"big":"${"p".repeat(30_000)}"}`;
    const bounded = boundTexts(12, texts({ stdout, output, stderr: "warned\n", error: "" }), 10_000);

    expect(totalLength(bounded.texts)).toBeLessThanOrEqual(10_000);
    expect(bounded.texts.stderr).toBe("warned\n");
    expect(bounded.texts.error).toBe("");
    expect(bounded.cuts.map((cut) => cut.stream).sort()).toEqual(["output", "stdout"]);
    for (const cut of bounded.cuts) {
      const shown = bounded.texts[cut.stream];
      const whole = cut.stream === "stdout" ? stdout : output;
      expect(cut.totalChars).toBe(whole.length);
      expect(shown.startsWith(whole.slice(0, cut.headChars))).toBe(true);
      expect(shown.endsWith(whole.slice(whole.length - cut.tailChars))).toBe(true);
      expect(shown).toContain(cutMarker(12, cut.stream, cut.headChars, cut.totalChars - cut.headChars - cut.tailChars));
      // Each long text gets about half of what the short ones leave (stderr takes 8: its newline is two).
      expect(jsonChars(shown)).toBeGreaterThan(4_900);
      expect(jsonChars(shown)).toBeLessThanOrEqual(Math.ceil((10_000 - 8) / 2));
    }
    expect(bounded.texts.stdout.endsWith("END")).toBe(true);
  });

  it("names the offset to read on from, and paging from it gives back the whole text", () => {
    const stdout = Array.from({ length: 5_000 }, (_, i) => `line ${i} 🙂 ${"x".repeat(i % 37)}\n`).join("");
    const bounded = boundTexts(3, texts({ stdout }), 2_000);
    expect(bounded.texts.stdout).toContain(
      `get_process {"id":3,"stream":"stdout","offset":${bounded.cuts[0]!.headChars}}`,
    );
    expect(bounded.texts.stdout).toContain(`GET /processes/3/text?stream=stdout&offset=${bounded.cuts[0]!.headChars}`);
    expect(reassemble(bounded.texts.stdout, stdout, 1_001)).toBe(stdout);
  });

  it.each([1_000, 1_001, 4_321, 60_000])("stays within a limit of %d with four long texts", (limit) => {
    const long = (char: string) => char.repeat(200_000);
    const bounded = boundTexts(
      2 ** 40,
      texts({ stdout: long("o"), stderr: long("e"), output: long("j"), error: long("x") }),
      limit,
    );
    expect(totalLength(bounded.texts)).toBeLessThanOrEqual(limit);
    expect(bounded.cuts).toHaveLength(4);
    for (const cut of bounded.cuts) expect(cut.headChars + cut.tailChars).toBeGreaterThan(0);
  });

  it("counts characters as JSON strings take them: quotes, newlines and control characters count more", () => {
    expect(jsonChars('a"b\\c\nd\u0001🙂')).toBe(1 + 2 + 1 + 2 + 1 + 2 + 1 + 6 + 2);
    const output = JSON.stringify({ rows: Array.from({ length: 3_000 }, (_, i) => ({ i, s: "q" })) });
    const stdout = "\u0007\n".repeat(20_000);
    const bounded = boundTexts(5, texts({ output, stdout }), 5_000);
    expect(totalLength(bounded.texts)).toBeLessThanOrEqual(5_000);
    expect(totalLength(bounded.texts)).toBeGreaterThan(4_900);
    expect(JSON.stringify(bounded.texts).length).toBeLessThan(5_000 + 100);
    const stdoutCut = bounded.cuts.find((cut) => cut.stream === "stdout")!;
    // Each "\u0007\n" takes 8: the 2,500 JSON characters of a share hold about 300 of them.
    expect(stdoutCut.headChars + stdoutCut.tailChars).toBeLessThan(700);
  });

  it("never splits a surrogate pair at either end of a cut", () => {
    for (let shift = 0; shift < 4; shift++) {
      const stdout = "a".repeat(shift) + "🙂".repeat(20_000);
      const { texts: bounded } = boundTexts(1, texts({ stdout }), 1_000);
      // A lone half of a pair is not valid UTF-16: encoding it to UTF-8 would turn it into U+FFFD.
      expect(Buffer.from(bounded.stdout, "utf8").toString("utf8")).toBe(bounded.stdout);
    }
  });
});

describe("sliceText", () => {
  it("pages a text from an offset until nextOffset is null", () => {
    expect(sliceText("abcdefg", 0, 3)).toEqual({ offset: 0, text: "abc", nextOffset: 3 });
    expect(sliceText("abcdefg", 6, 3)).toEqual({ offset: 6, text: "g", nextOffset: null });
    expect(sliceText("abcdefg", 7, 3)).toEqual({ offset: 7, text: "", nextOffset: null });
  });

  it("ends a page before a surrogate pair it would split, and starts one at the pair's first half", () => {
    const text = "ab🙂cd"; // the pair is at 2 and 3
    expect(sliceText(text, 0, 3)).toEqual({ offset: 0, text: "ab", nextOffset: 2 });
    expect(sliceText(text, 3, 2)).toEqual({ offset: 2, text: "🙂", nextOffset: 4 });
    // A limit of one at a pair still moves on, by the whole pair.
    expect(sliceText(text, 2, 1)).toEqual({ offset: 2, text: "🙂", nextOffset: 4 });
  });

  it("counts a page's limit as its text takes it in JSON: a page of quotes holds half as many", () => {
    const quotes = '"'.repeat(100_000);
    const page = sliceText(quotes, 0, 60_000);
    expect(page).toMatchObject({ offset: 0, nextOffset: 30_000 });
    expect(jsonChars(page.text)).toBe(60_000);
    // Mixed text: every page fits, and the pages join to the whole.
    const mixed = 'say "hi"\n\t\u0001 and 🙂\n'.repeat(5_000);
    let joined = "";
    for (let next: number | null = 0; next !== null; ) {
      const part = sliceText(mixed, next, 1_000);
      expect(jsonChars(part.text)).toBeLessThanOrEqual(1_000);
      joined += part.text;
      next = part.nextOffset;
    }
    expect(joined).toBe(mixed);
    // A limit smaller than one character still moves on, by that character.
    expect(sliceText("\u0001x", 0, 1)).toEqual({ offset: 0, text: "\u0001", nextOffset: 1 });
  });
});
