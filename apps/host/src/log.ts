/**
 * Structured JSON logs, one object per line. Field names that look like
 * credentials are redacted at any depth, whoever logs them (host code or a
 * module through its context logger). Lines are bounded: every string (the
 * message included) is cut at {@link MAX_LOG_STRING_CHARS}, and a line that
 * would still exceed {@link MAX_LOG_LINE_CHARS} keeps only its message and
 * short fields — a caller can put megabytes into a tool parameter that an
 * error message then repeats.
 */
import type { Logger } from "@cyrnel/sdk";
import type { LogLevel } from "./config.js";
import { cutText } from "./cut-text.js";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SENSITIVE = /authorization|cookie|key|token|secret|password/i;
const MAX_DEPTH = 6;
/** Longest string kept in a log line, the message included. */
export const MAX_LOG_STRING_CHARS = 8 * 1024;
/** Longest log line. */
export const MAX_LOG_LINE_CHARS = 64 * 1024;
/** A field kept when a line is too long must serialise to at most this many characters. */
const SHORT_FIELD_CHARS = 256;
const numberFormat = new Intl.NumberFormat("en-US");

export interface HostLogger extends Logger {
  child(fields: Record<string, unknown>): HostLogger;
}

export interface LogSink {
  write(line: string): unknown;
}

/**
 * The host's log output on a stream (its stdout), surviving the stream's
 * end: when whoever reads it goes away (`cyrnel start | tee log` and `tee`
 * is killed, a supervisor's pipe closed), a write fails with `EPIPE`, which
 * the stream reports as an `error` event. Unhandled, that became an uncaught
 * exception, which the host logs (process-guard.ts) — to the same stream,
 * failing again: the host spun a CPU core forever. Now the first error ends
 * the logging: it is said once on `notice` (stderr, when that still works),
 * and later lines are dropped; the host keeps serving.
 */
export function streamSink(
  stream: { write(line: string): unknown; on(event: "error", listener: (error: Error) => void): unknown },
  notice: (line: string) => void = () => {},
): LogSink {
  let broken = false;
  stream.on("error", (error) => {
    if (broken) return;
    broken = true;
    try {
      notice(
        `cyrnel: the log output failed (${(error as NodeJS.ErrnoException).code ?? error.message}); no more log lines are written\n`,
      );
    } catch {
      // Nowhere left to say it.
    }
  });
  return {
    write: (line) => {
      if (!broken) stream.write(line);
    },
  };
}

/**
 * The trace and span ids of the context a line is written in (telemetry/tracing.ts `currentIds`), added to the
 * line as `traceId` and `spanId`; absent when the host does not trace, so a line then costs nothing more.
 */
export type TraceIdsOf = () => { traceId: string; spanId: string } | null;

export function createLogger(
  level: LogLevel,
  sink: LogSink = process.stdout,
  base: Record<string, unknown> = {},
  traceIds?: TraceIdsOf,
): HostLogger {
  const emit = (at: Exclude<LogLevel, "silent">, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const ids = traceIds?.();
    const entry = {
      time: new Date().toISOString(),
      level: at,
      msg: cutText(withoutUrlPasswords(String(message)), MAX_LOG_STRING_CHARS),
      ...(ids && { traceId: ids.traceId, spanId: ids.spanId }),
      ...redact(base),
      ...redact(fields ?? {}),
    };
    sink.write(`${boundedLine(entry)}\n`);
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }, traceIds),
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
  if (value instanceof Error) {
    return { name: value.name, message: cutText(withoutUrlPasswords(value.message), MAX_LOG_STRING_CHARS) };
  }
  if (typeof value === "string") return cutText(withoutUrlPasswords(value), MAX_LOG_STRING_CHARS);
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH) return "[truncated]";
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return redact(value as Record<string, unknown>, depth);
}

/**
 * The password of any URL in a logged string (`postgres://user:password@host`, as CYRNEL_DATABASE_URL or a
 * driver's message may carry it), whatever the field is called.
 */
export function withoutUrlPasswords(text: string): string {
  return text.includes("://") ? text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s@]*@/gi, "$1[redacted]@") : text;
}

/** The entry as one line of at most {@link MAX_LOG_LINE_CHARS}: too long, it keeps the message and short fields. */
function boundedLine(entry: Record<string, unknown>): string {
  const line = safeStringify(entry);
  if (line.length <= MAX_LOG_LINE_CHARS) return line;
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(entry)) {
    if (name === "msg" || safeStringify({ [name]: value }).length <= SHORT_FIELD_CHARS) kept[name] = value;
    else dropped.push(name);
  }
  kept.truncated =
    `${dropped.length} fields dropped: the line would be ${numberFormat.format(line.length)} characters ` +
    `(limit ${numberFormat.format(MAX_LOG_LINE_CHARS)})`;
  const shorter = safeStringify(kept);
  return shorter.length <= MAX_LOG_LINE_CHARS
    ? shorter
    : safeStringify({ time: entry.time, level: entry.level, msg: entry.msg, truncated: kept.truncated });
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
