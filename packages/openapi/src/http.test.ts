import { describe, expect, it } from "vitest";
import { callSignal, displayUrl, redact, successBody, UpstreamError } from "./http.js";

describe("redact", () => {
  it.each([
    ["a string", "token=abcd1234!", ["abcd1234"], "token=[redacted]!"],
    [
      "nested values and keys",
      { h: { "x-key": "abcd1234", list: ["abcd1234", 1] }, abcd1234: true },
      ["abcd1234"],
      { h: { "x-key": "[redacted]", list: ["[redacted]", 1] }, "[redacted]": true },
    ],
    ["short values are left alone", "abc", ["abc"], "abc"],
    ["no secrets", { a: "b" }, [], { a: "b" }],
    ["non-strings", 42, ["abcd"], 42],
  ])("%s", (_label, value, secrets, expected) => {
    expect(redact(value, secrets)).toEqual(expected);
  });
});

describe("displayUrl", () => {
  it("drops user info", () => {
    expect(displayUrl("http://user:pass@example.com/a?b=1")).toBe("http://example.com/a?b=1");
    expect(displayUrl("not a url")).toBe("not a url");
  });
});

describe("successBody", () => {
  const exchange = { method: "GET", displayUrl: "http://h/x" };
  it("returns the body of a 2xx reply", () => {
    expect(successBody(exchange, { status: 201, statusText: "Created", body: { a: 1 } })).toEqual({ a: 1 });
  });
  it("throws an UpstreamError with status and body otherwise", () => {
    try {
      successBody(exchange, { status: 404, statusText: "Not Found", body: { error: "missing" } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({
        message: "GET http://h/x → 404 Not Found",
        status: 404,
        body: { error: "missing" },
      });
    }
  });
});

describe("callSignal", () => {
  it("aborts at the deadline with reason timeout", async () => {
    const call = callSignal(10, undefined);
    await new Promise((resolve) => call.signal.addEventListener("abort", resolve, { once: true }));
    expect(call.reason).toBe("timeout");
    call.dispose();
  });

  it("aborts at once when cancel aborts, before or during the call", () => {
    const lifetime = new AbortController();
    const during = callSignal(60_000, lifetime.signal);
    expect(during.signal.aborted).toBe(false);
    lifetime.abort();
    expect([during.signal.aborted, during.reason]).toEqual([true, "canceled"]);
    during.dispose();
    const after = callSignal(60_000, lifetime.signal);
    expect([after.signal.aborted, after.reason]).toEqual([true, "canceled"]);
    after.dispose();
  });

  it("a deadline beyond Node's timer range does not fire early", async () => {
    const call = callSignal(2 ** 32, undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(call.signal.aborted).toBe(false);
    call.dispose();
  });

  it("dispose forgets the cancel signal", () => {
    const lifetime = new AbortController();
    const call = callSignal(60_000, lifetime.signal);
    call.dispose();
    lifetime.abort();
    expect([call.signal.aborted, call.reason]).toEqual([false, null]);
  });
});
