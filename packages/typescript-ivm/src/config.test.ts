import { describe, expect, it } from "vitest";
import { CONFIG_SCHEMA, DEPRECATED_OPTIONS, defaultTypecheckThreads, parseConfig } from "./config.js";

describe("parseConfig", () => {
  it("applies defaults", () => {
    expect(parseConfig({})).toEqual({
      maxExecutions: 500,
      queueSize: 500,
      memoryBudgetMb: 1024,
      warmIsolates: 4,
      memoryLimitMb: 128,
      defaultTimeoutMs: 30_000,
      maxTimers: 1000,
      maxPendingToolCalls: 256,
      maxLogBytes: 1024 * 1024,
      maxOutputBytes: 1024 * 1024,
      watchdogTimeoutMs: 10_000,
      typecheck: true,
      typecheckTimeoutMs: 5_000,
      typecheckMemoryMb: 512,
      typecheckThreads: defaultTypecheckThreads(512),
    });
  });

  it("defaults to one type-checker thread per core, at most 4, within a quarter of the memory", () => {
    const threads = defaultTypecheckThreads(512);
    expect(threads).toBeGreaterThanOrEqual(1);
    expect(threads).toBeLessThanOrEqual(4);
    expect(defaultTypecheckThreads(16_384 * 1024)).toBe(1);
    expect(parseConfig({ typecheckThreads: 3 }).typecheckThreads).toBe(3);
  });

  it("keeps given values, including a null default timeout", () => {
    const config = parseConfig({ maxExecutions: 4, memoryLimitMb: 32, queueSize: 0, defaultTimeoutMs: null });
    expect(config).toMatchObject({ maxExecutions: 4, memoryLimitMb: 32, queueSize: 0, defaultTimeoutMs: null });
  });

  it.each([
    [{ maxExecutions: 0 }, "maxExecutions must be an integer from 1 to 100000, got 0"],
    [{ memoryBudgetMb: 32 }, "memoryBudgetMb must be an integer from 64 to 1048576, got 32"],
    [{ memoryLimitMb: 4 }, "memoryLimitMb must be an integer from 8 to 8192, got 4"],
    [{ queueSize: 1.5 }, "queueSize must be an integer"],
    [{ maxTimers: "10" }, 'maxTimers must be an integer from 1 to 100000, got "10"'],
    [{ defaultTimeoutMs: 0 }, "defaultTimeoutMs must be an integer from 1 to 2147483647 or null, got 0"],
    [{ defaultTimeoutMs: 2 ** 31 }, "defaultTimeoutMs must be an integer from 1 to 2147483647 or null, got 2147483648"],
    [{ watchdogTimeoutMs: 100 }, "watchdogTimeoutMs must be an integer from 500 to 3600000, got 100"],
    [{ typecheck: "yes" }, 'typecheck must be true or false, got "yes"'],
    [{ typecheckTimeoutMs: 10 }, "typecheckTimeoutMs must be an integer from 100 to 600000, got 10"],
    [{ typecheckMemoryMb: 8 }, "typecheckMemoryMb must be an integer from 64 to 16384, got 8"],
    [{ typecheckThreads: 0 }, "typecheckThreads must be an integer from 1 to 64, got 0"],
  ])("rejects %j", (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(message);
  });

  it("accepts and ignores the keys of earlier versions, so a stored config still activates", () => {
    expect(parseConfig({ poolSize: 2, maxWorkerRssMb: 1024 })).toEqual(parseConfig({}));
    const properties = CONFIG_SCHEMA.properties as Record<string, { deprecated?: boolean }>;
    expect(Object.keys(DEPRECATED_OPTIONS).map((name) => properties[name]?.deprecated)).toEqual([true, true]);
  });

  it("describes every key with a default in the schema", () => {
    const properties = Object.fromEntries(
      Object.entries(CONFIG_SCHEMA.properties as Record<string, { default?: unknown; description?: string }>).filter(
        ([name]) => !(name in DEPRECATED_OPTIONS),
      ),
    );
    expect(Object.keys(properties).sort()).toEqual(Object.keys(parseConfig({})).sort());
    for (const [name, property] of Object.entries(properties)) {
      expect(property.default, name).toEqual(parseConfig({})[name as keyof ReturnType<typeof parseConfig>]);
      expect(property.description, name).toBeTruthy();
    }
  });
});
