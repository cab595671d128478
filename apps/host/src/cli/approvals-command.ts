/** `cyrnel approvals ...`: the calls that wait for an operator's decision (tools whose policy is `ask`). */

import { CyrnelApi } from "../client/api-client.js";
import type { Approval, ApprovalSummary } from "../contract/governance.js";
import { COMMON_HELP, parseCommand, positionals, UsageError } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { clip, printJson, printLine, table } from "./output.js";

export const APPROVALS_HELP = `Usage:
  cyrnel approvals list [--state pending|approved|denied|expired|all] [--process <id>]
  cyrnel approvals show <id>
  cyrnel approvals approve <id> [--reason <text>]
  cyrnel approvals deny <id> [--reason <text>]

A call of a tool whose policy is ask waits, its process suspended, until it is approved (the call
runs) or denied (the call throws approval_denied with the reason); undecided, it expires. list shows
the pending ones unless --state says otherwise, newest first, with the start of their parameters and
their size; show prints one approval with its parameters whole and their SHA-256. Parameters are shown
with the service's secret values masked. Deciding an approval twice is refused.

${COMMON_HELP}`;

const STATES = ["pending", "approved", "denied", "expired", "all"];

export async function approvalsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals: given } = parseCommand(rest, {
    state: { type: "string" },
    process: { type: "string" },
    reason: { type: "string" },
  });
  if (sub === undefined) {
    process.stderr.write(`${APPROVALS_HELP}\n`);
    return EXIT.usage;
  }
  if (sub === "help" || sub === "--help" || sub === "-h" || values.help) {
    process.stdout.write(`${APPROVALS_HELP}\n`);
    return EXIT.ok;
  }
  const settings = clientSettings(values);
  const api = new CyrnelApi(settings.url, settings.apiKey);

  if (sub === "list") {
    positionals(given, [], "cyrnel approvals list [--state <state>] [--process <id>]");
    if (values.reason !== undefined) throw new UsageError("--reason belongs to approve and deny");
    const state = values.state ?? "pending";
    if (!STATES.includes(state)) throw new UsageError(`--state must be one of ${STATES.join(", ")}`);
    const approvals = await api.listAll<ApprovalSummary>("/approvals", {
      state: state === "all" ? undefined : state,
      processId: values.process === undefined ? undefined : positiveId(values.process, "--process"),
    });
    if (values.json) printJson({ items: approvals });
    else if (approvals.length === 0) printLine(state === "all" ? "no approvals" : `no ${state} approvals`);
    else
      printLine(
        table(
          ["ID", "STATE", "PROCESS", "TOOL", "CREATED", "SIZE", "PARAMETERS"],
          approvals.map((approval) => [
            String(approval.id),
            approval.state,
            String(approval.processId),
            `${approval.serviceId}.${approval.toolId}`,
            approval.createdAt,
            `${approval.parametersBytes} B`,
            // A cut preview is the start of the JSON text already (a string); a whole one is the value.
            clip(
              typeof approval.parameters === "string" ? approval.parameters : JSON.stringify(approval.parameters),
              60,
            ),
          ]),
        ),
      );
    return EXIT.ok;
  }
  if (values.state !== undefined || values.process !== undefined) {
    throw new UsageError("--state and --process belong to approvals list");
  }
  if (sub === "show") {
    if (values.reason !== undefined) throw new UsageError("--reason belongs to approve and deny");
    const [id] = positionals(given, ["id"], "cyrnel approvals show <id>");
    printJson(await api.json<Approval>("GET", `/approvals/${positiveId(id!, "an approval id")}`));
    return EXIT.ok;
  }
  if (sub === "approve" || sub === "deny") {
    const [id] = positionals(given, ["id"], `cyrnel approvals ${sub} <id> [--reason <text>]`);
    const decided = await api.json<ApprovalSummary>("POST", `/approvals/${positiveId(id!, "an approval id")}/${sub}`, {
      body: values.reason === undefined ? {} : { reason: values.reason },
    });
    if (values.json) printJson(decided);
    else
      printLine(
        `approval ${decided.id} ${decided.state}: ${decided.serviceId}.${decided.toolId} of process ${decided.processId}`,
      );
    return EXIT.ok;
  }
  throw new UsageError(`unknown approvals command "${sub}"; see cyrnel approvals --help`);
}

/** What a process run prints about an approval it waits for (`cyrnel run`). */
export function approvalNote(approval: ApprovalSummary): string {
  const call = `${approval.serviceId}.${approval.toolId}`;
  const reason = approval.reason ? `: ${approval.reason}` : "";
  if (approval.state === "pending") {
    return (
      `cyrnel: process ${approval.processId} suspended: ${call} waits for approval ${approval.id} ` +
      `(cyrnel approvals approve ${approval.id}, or deny ${approval.id} --reason <text>)`
    );
  }
  return `cyrnel: approval ${approval.id} (${call}) ${approval.state}${reason}`;
}

/** A positive integer id, or a usage error saying what `what` must be. */
function positiveId(text: string, what: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`${what} is a positive integer, got "${text}"`);
  return Number(text);
}
