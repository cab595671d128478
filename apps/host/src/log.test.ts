import { describe, expect, it } from "vitest";
import { createLogger, MAX_LOG_LINE_CHARS, MAX_LOG_STRING_CHARS, streamSink } from "./log.js";

/** A logger writing into an array, and the lines it wrote. */
function capture() {
  const lines: string[] = [];
  const logger = createLogger("debug", { write: (line: string) => lines.push(line) });
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, any>) };
}

describe("log lines", () => {
  it("cut every string, at any depth, with a marker", () => {
    const { logger, lines, entries } = capture();
    const huge = "p".repeat(30 * 1024 * 1024);
    logger.warn(`failed: ${huge}`, { error: huge, nested: { list: [huge] }, failure: new Error(huge) });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    const [entry] = entries();
    for (const text of [entry!.msg, entry!.error, entry!.nested.list[0], entry!.failure.message]) {
      expect(text.length).toBeLessThanOrEqual(MAX_LOG_STRING_CHARS + 50);
      expect(text).toMatch(/… \[cut: [\d,]+ more characters\]$/);
    }
  });

  it("bound the whole line, keeping the message and the short fields", () => {
    const { logger, lines, entries } = capture();
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`field${index}`, "f".repeat(1000)]));
    logger.child({ module: "openapi" }).error("too much", { service: "weather", ...many });
    expect(lines[0]!.length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    const [entry] = entries();
    expect(entry).toMatchObject({ level: "error", msg: "too much", module: "openapi", service: "weather" });
    expect(entry!.field0).toBeUndefined();
    expect(entry!.truncated).toMatch(/200 fields dropped: the line would be [\d,]+ characters \(limit 65,536\)/);
  });

  it("still redact credential-like fields, and keep short lines as they are", () => {
    const { logger, entries } = capture();
    logger.info("hello", { apiKey: "k".repeat(10), count: 3, ok: true });
    expect(entries()[0]).toMatchObject({ msg: "hello", apiKey: "[redacted]", count: 3, ok: true });
  });

  it("never carry the password of a URL, in any field, the message or an error", () => {
    const { logger, lines } = capture();
    const url = "postgres://cyrnel:hunter2@db.internal:5432/cyrnel";
    logger.error(`cannot reach ${url}`, { target: url, error: new Error(`connect ${url} failed`), nested: [{ url }] });
    expect(lines[0]).not.toContain("hunter2");
    expect(lines[0]).toContain("postgres://cyrnel:[redacted]@db.internal:5432/cyrnel");
  });
});

describe("a log output that fails", () => {
  it("is written no more once it failed, and says so once", () => {
    const listeners: ((error: Error) => void)[] = [];
    const written: string[] = [];
    const stream = {
      write: (line: string) => written.push(line),
      on: (_event: "error", listener: (error: Error) => void) => listeners.push(listener),
    };
    const notices: string[] = [];
    const logger = createLogger(
      "info",
      streamSink(stream, (line) => notices.push(line)),
    );
    logger.info("first");
    const broken = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    for (const listener of listeners) listener(broken);
    for (const listener of listeners) listener(broken);
    logger.error("second");
    expect(written).toHaveLength(1);
    expect(notices).toEqual(["cyrnel: the log output failed (EPIPE); no more log lines are written\n"]);
  });
});
