/**
 * Structured JSON logs, one object per line. Field names that look like
 * credentials are redacted at any depth, whoever logs them (host code or a
 * module through its context logger).
 */
import type { Logger } from "@cyrnel/sdk";
import type { LogLevel } from "./config.js";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SENSITIVE = /authorization|cookie|key|token|secret|password/i;
const MAX_DEPTH = 6;

export interface HostLogger extends Logger {
  child(fields: Record<string, unknown>): HostLogger;
}

export interface LogSink {
  write(line: string): unknown;
}

export function createLogger(
  level: LogLevel,
  sink: LogSink = process.stdout,
  base: Record<string, unknown> = {},
): HostLogger {
  const emit = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const entry = { time: new Date().toISOString(), level: at, msg: message, ...redact(base), ...redact(fields ?? {}) };
    sink.write(`${safeStringify(entry)}\n`);
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}

export function redact(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = SENSITIVE.test(name) ? "[redacted]" : redactValue(value, depth + 1);
  }
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH) return "[truncated]";
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return redact(value as Record<string, unknown>, depth);
}

function safeStringify(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
  } catch {
    return JSON.stringify({
      time: entry.time,
      level: entry.level,
      msg: entry.msg,
      note: "fields were not serialisable",
    });
  }
}
