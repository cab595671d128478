import type { ToolAnnotations } from "@cyrnel/sdk";
import { isRecord } from "./records.js";

/**
 * Stage 3: MCP's tool annotation hints → cyrnel's tool annotations, with
 * MCP's own defaults for the hints a server leaves out (MCP spec, "Tool
 * annotations"): `readOnlyHint` false, `destructiveHint` true,
 * `idempotentHint` false, `openWorldHint` true. Those defaults are the
 * careful reading — a tool is assumed to change things, possibly
 * irreversibly, and to reach the outside world unless the server says
 * otherwise — so an operator's "ask before anything destructive" policy
 * covers a server that says nothing. `destructive` only means something for
 * a tool that is not read-only, so a read-only tool is never destructive.
 *
 * Every hint is set, `false` included, so the record says what was decided.
 * They remain the server's claims: installing a server is trusting it.
 */
export function annotationsOf(hints: unknown): Required<ToolAnnotations> {
  const hint = (key: string): boolean | undefined => {
    const value = isRecord(hints) ? hints[key] : undefined;
    return typeof value === "boolean" ? value : undefined;
  };
  const readOnly = hint("readOnlyHint") ?? false;
  return {
    readOnly,
    destructive: !readOnly && (hint("destructiveHint") ?? true),
    idempotent: hint("idempotentHint") ?? false,
    openWorld: hint("openWorldHint") ?? true,
  };
}
