/**
 * Who is asking: set on every request by the auth middleware (http/auth.ts)
 * and carried with every tool call, from a direct invoke or from code.
 *
 * `CYRNEL_API_KEY` and a host without authentication act as an admin with no
 * key id; a stored key brings its id, role and service allow-list, and an
 * OAuth access token its subject (`oauth:<sub>`) and what its scopes grant
 * (domain/governance/oauth-tokens.ts). Processes remember the key that
 * created them (`keyId`), and their tool calls are checked against that key
 * (or that subject's latest token) as it is at call time.
 */

import type { RunSpan } from "../../telemetry/tracing.js";
import type { JournaledCall } from "../processes/run-journal.js";

export type Role = "admin" | "agent";

export interface Caller {
  /** The stored key's id, or `oauth:<sub>` for an OAuth access token; null for `CYRNEL_API_KEY` or when authentication is off. */
  keyId: string | null;
  role: Role;
  /** Service ids this caller may see and call; null = every service. */
  services: string[] | null;
}

/** Whose allow-list applies to what is shown or called: a request's caller, or a process's. */
export type Viewer = Pick<Caller, "services">;

/** Sees every service: admin-side operations. */
export const EVERY_SERVICE: Viewer = Object.freeze({ services: null });

/** `CYRNEL_API_KEY`, or anyone when the host has no authentication. */
export const BOOTSTRAP_CALLER: Caller = Object.freeze({ keyId: null, role: "admin", services: null });

/** Where a tool call comes from: who makes it, and the process and run it comes from (null for a direct invoke). */
export interface CallContext {
  caller: Caller;
  processId: number | null;
  executionId: number | null;
  /** Aborted when the run that makes the call ends (kill, timeout, shutdown): the call is canceled with it. */
  ended?: AbortSignal;
  /** The span of the run that makes the call (its call's span is a child); absent for a direct invoke. */
  run?: RunSpan;
  /** The call in its run's journal (durable runs, domain/processes/run-journal.ts); absent: not journaled. */
  journal?: JournaledCall;
  /** Writes a line of the host's to the run's stderr (an approved call says so); absent for a direct invoke. */
  note?(line: string): void;
}

/** The bucket of a caller's per-key limits: its stored key, or the one bootstrap caller (`CYRNEL_API_KEY`, no keys). */
export function limitKeyOf(caller: Pick<Caller, "keyId">): string {
  return caller.keyId ?? "(bootstrap)";
}

/**
 * Whether the caller may see and call the service. A hidden service looks
 * exactly like one that does not exist (404 with the same message).
 */
export function seesService(caller: Viewer, serviceId: string): boolean {
  return caller.services === null || caller.services.includes(serviceId);
}

/** An agent reaches only the processes its own key created (others are 404 to it); an admin reaches all. */
export function reachesProcess(caller: Caller, process: { keyId: string | null }): boolean {
  return caller.role === "admin" || (caller.keyId !== null && process.keyId === caller.keyId);
}
