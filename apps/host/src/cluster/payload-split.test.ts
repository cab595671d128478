import pg from "pg";
import { describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/cluster-postgres.js";
import { jsonStringBytes, splitForPayload } from "./payload-split.js";
import { NOTIFY_PAYLOAD_LIMIT } from "./sql.js";

const postgres = usePostgres();

/** Text with every kind of character whose encoded size differs: ASCII, escapes, controls, 2-, 3- and 4-byte UTF-8. */
function mixedText(length: number): string {
  const alphabet = [
    "a",
    "Z",
    " ",
    "\n",
    "\t",
    '"',
    "\\",
    "\u0001",
    "\u001f",
    "é",
    "ß",
    "€",
    "中",
    "😀",
    "🧪",
    "\u2028",
  ];
  let text = "";
  let seed = 7;
  while (text.length < length) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    text += alphabet[seed % alphabet.length];
  }
  return text;
}

describe("splitForPayload", () => {
  it("measures what JSON.stringify makes of the text", () => {
    const text = mixedText(5000);
    expect(jsonStringBytes(text)).toBe(Buffer.byteLength(JSON.stringify(text)) - 2);
    // A lone surrogate is escaped (\udXXX).
    expect(jsonStringBytes("\ud83d")).toBe(Buffer.byteLength(JSON.stringify("\ud83d")) - 2);
  });

  it("cuts text into pieces that fit the budget, between code points, and rejoin to the text", () => {
    const text = mixedText(100_000);
    const pieces = splitForPayload(text, 1000);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(jsonStringBytes(piece)).toBeLessThanOrEqual(1000);
      // No lone surrogate: with the u flag, \p{Cs} matches only a surrogate that is not half of a pair.
      expect(/\p{Cs}/u.test(piece)).toBe(false);
    }
    expect(splitForPayload("", 1000)).toEqual([]);
  });

  it("makes payloads PostgreSQL accepts at the largest size", async () => {
    const client = new pg.Client({ connectionString: await postgres.server.createDatabase() });
    await client.connect();
    try {
      const pieces = splitForPayload(mixedText(40_000), NOTIFY_PAYLOAD_LIMIT - 2);
      for (const piece of pieces) {
        const payload = JSON.stringify(piece);
        expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(NOTIFY_PAYLOAD_LIMIT);
        await client.query("SELECT pg_notify('split_test', $1)", [payload]);
      }
      // The limit is real: one byte under 8000 passes, 8000 is refused.
      await client.query("SELECT pg_notify('split_test', $1)", ["x".repeat(7999)]);
      await expect(client.query("SELECT pg_notify('split_test', $1)", ["x".repeat(8000)])).rejects.toThrow(
        /payload string too long/,
      );
    } finally {
      await client.end();
    }
  });
});
