import { describe, expect, it } from "vitest";
import { secretForms } from "./secret-forms.js";

describe("secretForms", () => {
  it("lists the raw, percent-, form- and JSON-encoded forms, lowercase hex included", () => {
    const forms = secretForms('QUERYKEY+/=abc 1"23');
    for (const form of [
      'QUERYKEY+/=abc 1"23',
      "QUERYKEY%2B%2F%3Dabc%201%2223",
      "QUERYKEY%2b%2f%3dabc%201%2223",
      "QUERYKEY%2B%2F%3Dabc+1%2223",
      "QUERYKEY%2b%2f%3dabc+1%2223",
      'QUERYKEY+/=abc 1\\"23',
    ]) {
      expect(forms).toContain(form);
    }
  });

  it("covers URLSearchParams' form encoding, which escapes more than encodeURIComponent", () => {
    expect(secretForms("it's (x)!")).toContain("it%27s+%28x%29%21");
  });

  it("adds HTTP basic's base64 of username:password and walks nested values", () => {
    const forms = secretForms({ basic: { username: "ada", password: "pass word" }, list: ["token-1"] });
    expect(forms).toContain(Buffer.from("ada:pass word").toString("base64"));
    expect(forms).toContain("pass%20word");
    expect(forms).toContain("token-1");
    expect(forms).not.toContain("ada");
  });

  it("skips values too short to mask, and lists longer forms first", () => {
    expect(secretForms(["abc", "", 42, null])).toEqual([]);
    const forms = secretForms("a b c d");
    expect(forms).toEqual([...forms].sort((x, y) => y.length - x.length));
  });
});
