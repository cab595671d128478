import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { AdapterModule, Logger, ServiceDefinition, ServiceState } from "@cyrnel/sdk";
import { instantiate } from "../src/index.js";

const require = createRequire(import.meta.url);

/** The entry script of a reference server package (run with this Node, so no `npx` and no network). */
export function referenceServer(name: "everything" | "memory" | "filesystem"): string {
  const pkg = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  return join(dirname(pkg), "dist", "index.js");
}

export const labServer = join(import.meta.dirname, "fixtures", "lab-server.mjs");

export interface LogEntry {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every entry, and waits for one. */
export class RecordingLogger implements Logger {
  readonly entries: LogEntry[] = [];
  private waiters: { match: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }[] = [];

  debug = (message: string, fields: Record<string, unknown> = {}) => this.add("debug", message, fields);
  info = (message: string, fields: Record<string, unknown> = {}) => this.add("info", message, fields);
  warn = (message: string, fields: Record<string, unknown> = {}) => this.add("warn", message, fields);
  error = (message: string, fields: Record<string, unknown> = {}) => this.add("error", message, fields);

  private add(level: string, message: string, fields: Record<string, unknown>) {
    const entry = { level, message, fields };
    this.entries.push(entry);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.match(entry)) return true;
      waiter.resolve(entry);
      return false;
    });
  }

  /** The first entry (already logged or still to come) that matches. */
  waitFor(match: (entry: LogEntry) => boolean): Promise<LogEntry> {
    const found = this.entries.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  count(match: (entry: LogEntry) => boolean): number {
    return this.entries.filter(match).length;
  }
}

/** An adapter set up with a recording logger. */
export async function adapter(): Promise<{ adapter: AdapterModule; logger: RecordingLogger }> {
  const logger = new RecordingLogger();
  const module = instantiate();
  await module.setup({ config: {}, secrets: {}, logger });
  return { adapter: module, logger };
}

/** What the host hands `hydrateService` for a definition, with these secrets. */
export function stateOf(
  id: string,
  definition: ServiceDefinition,
  secrets: Record<string, unknown> = {},
): ServiceState {
  return {
    id,
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }])),
    config: {},
    secrets,
  };
}

export function stdio(script: string, args: string[] = [], env?: Record<string, string>): string {
  return JSON.stringify({
    transport: "stdio",
    command: process.execPath,
    args: [script, ...args],
    ...(env ? { env } : {}),
  });
}

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
