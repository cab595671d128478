/** Helpers around the `recorder` fixture adapter (test/fixtures/modules/recorder). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { ApiHost } from "./host.js";

export interface RecorderTool {
  id: string;
  behavior?: "echo" | "fail" | "failVerbose" | "leak" | "leakEncoded" | "failLarge" | "slow" | "secretLength";
  name?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** Passed on as the tool definition's `annotations` (readOnly, destructive, idempotent, openWorld). */
  annotations?: Record<string, unknown>;
}

export function recorderDefinition(tools: RecorderTool[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name: "Recorded", description: "A recorded service", tools, ...extra });
}

/** Enables the recorder adapter with a hook log under the data dir; returns the log's path. */
export async function enableRecorder(host: ApiHost): Promise<string> {
  const hookLog = join(host.dataDir, "hooks.jsonl");
  expect((await host.api("PATCH", "/modules/recorder/config", { hookLog })).status).toBe(200);
  expect((await host.api("POST", "/modules/recorder/enabled", { enabled: true })).status).toBe(200);
  return hookLog;
}

export function hookCalls(
  hookLog: string,
): { hook: string; service?: string; tool?: string; [key: string]: unknown }[] {
  if (!existsSync(hookLog)) return [];
  return readFileSync(hookLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Hook names recorded after the `from`-th call. */
export function hooksSince(hookLog: string, from: number): string[] {
  return hookCalls(hookLog)
    .slice(from)
    .map((call) => call.hook);
}

export async function installRecorded(
  host: ApiHost,
  id: string,
  tools: RecorderTool[],
  options: { enabled?: boolean; extra?: Record<string, unknown> } = {},
) {
  const response = await host.api("POST", "/services", {
    id,
    adapter: "recorder",
    definition: recorderDefinition(tools, options.extra),
    enabled: options.enabled,
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}
