/**
 * `cyrnel run <file.ts>`: runs a TypeScript file as a process on the host
 * and waits for it. Its stdout and stderr stream to ours as the code writes
 * them (`GET /processes/:id/events`); when it ends, the merged
 * `cyrnel.output(...)` is printed as JSON. Ctrl-C kills the process on the
 * host.
 */
import { readFileSync } from "node:fs";
import { CyrnelApi } from "../client/api-client.js";
import type { ExitState, ProcessRecord, ProcessReport } from "../contract/processes.js";
import { approvalNote } from "./approvals-command.js";
import { COMMON_HELP, parseCommand, positionals, UsageError } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { note, printJson } from "./output.js";
import { startProgress } from "./progress.js";
import { readAll } from "./secret-input.js";

export const RUN_HELP = `Usage:
  cyrnel run <file.ts|-> [--timeout <ms>|<n>s|<n>m|none] [--ref <label>] [--no-typecheck]

Runs the file (or stdin with -) in the host's active environment and waits. The environment
type-checks it first (type errors end it before anything runs); --no-typecheck runs it unchecked. Its stdout and stderr
stream to this terminal as they are written; when a tool call waits for an operator's approval (its
policy is ask), the process is suspended and that is said on stderr, with the approval's id, and again
when it is decided. When it ends, its output is printed as JSON. With --json, only the whole process
record is printed, at the end.
Ctrl-C cancels the process on the host. The timeout defaults to the host's (30 s); none = no limit.

Exit codes: 0 success, 1 failed, 124 timeout, 130 canceled (2 usage, 3 API error, 4 host unreachable).

${COMMON_HELP}`;

const EXIT_OF: Record<ExitState, number> = {
  success: EXIT.ok,
  failed: EXIT.failed,
  timeout: EXIT.timeout,
  canceled: EXIT.canceled,
};

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals: given } = parseCommand(args, {
    timeout: { type: "string" },
    ref: { type: "string" },
    "no-typecheck": { type: "boolean" },
  });
  if (values.help) {
    process.stdout.write(`${RUN_HELP}\n`);
    return EXIT.ok;
  }
  const [file] = positionals(given, ["file.ts"], "cyrnel run <file.ts|-> [--timeout <ms>] [--ref <label>]");
  const timeoutMs = values.timeout === undefined ? undefined : parseTimeout(values.timeout);
  const code = file === "-" ? await readAll(process.stdin) : readCode(file!);
  const settings = clientSettings(values);
  const api = new CyrnelApi(settings.url, settings.apiKey);

  let created: ProcessRecord | undefined;
  let interruptedAt: number | undefined;
  const onInterrupt = () => {
    if (interruptedAt === undefined && created) {
      interruptedAt = Date.now();
      note(`\ncanceling process ${created.id} (Ctrl-C again to stop waiting)`);
      api.json("POST", `/processes/${created.id}/signals/kill`).catch(() => undefined);
      return;
    }
    // `node bin/cyrnel.js` forwards the terminal's SIGINT to this re-executed child, which then sees it twice.
    if (interruptedAt !== undefined && Date.now() - interruptedAt < 500) return;
    process.exit(EXIT.canceled);
  };
  process.on("SIGINT", onInterrupt);
  let progress = values.json ? { stop() {} } : startProgress(`running ${file}`);
  const streamed = { stdout: "", stderr: "" };
  const write = (stream: "stdout" | "stderr", text: string) => {
    progress.stop();
    progress = { stop() {} };
    streamed[stream] += text;
    process[stream].write(text);
  };
  let report: ProcessReport;
  try {
    report = await api.runProcess(
      { code, ref: values.ref, timeoutMs, ...(values["no-typecheck"] ? { typecheck: false } : {}) },
      {
        onCreated: (record) => {
          created = record;
        },
        onText: values.json ? undefined : write,
        onApproval: values.json
          ? undefined
          : (approval) => {
              progress.stop();
              progress = { stop() {} };
              note(approvalNote(approval));
            },
      },
    );
  } finally {
    progress.stop();
    process.off("SIGINT", onInterrupt);
  }

  if (values.json) {
    printJson(report);
  } else {
    const results = "output" in report ? report : undefined;
    // Whatever the live stream did not deliver (it broke and the client fell back to polling).
    for (const stream of ["stdout", "stderr"] as const) {
      const final = results?.[stream] ?? "";
      if (final.startsWith(streamed[stream]) && final.length > streamed[stream].length) {
        write(stream, final.slice(streamed[stream].length));
      }
      if (streamed[stream] !== "" && !streamed[stream].endsWith("\n")) process[stream].write("\n");
    }
    if (results && Object.keys(results.output).length > 0) printJson(results.output);
    if (report.exitState !== "success") {
      note(`cyrnel: process ${report.id} ${report.exitState}${report.error ? `: ${report.error}` : ""}`);
    }
  }
  return report.exitState === null ? EXIT.failed : EXIT_OF[report.exitState];
}

/** `1500`, `1500ms`, `30s`, `2m`, or `none` (no limit). */
export function parseTimeout(text: string): number | null {
  if (text === "none") return null;
  const match = /^(\d+)(ms|s|m)?$/.exec(text.trim());
  const amount = match ? Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 }[match[2] ?? "ms"] ?? 1) : 0;
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new UsageError(`invalid --timeout "${text}": use milliseconds (1500), 30s, 2m or none`);
  }
  return amount;
}

function readCode(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
}
