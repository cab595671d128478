/**
 * The `cyrnel` command. `start` runs the server; the client commands
 * (services, tools, run, mcp, keys; in src/cli/) talk to a running host over
 * HTTP. Returns the exit code.
 */
import { join } from "node:path";
import { approvalsCommand } from "./cli/approvals-command.js";
import { keysCommand } from "./cli/keys-command.js";
import { mcpCommand } from "./cli/mcp-command.js";
import { reportErrors } from "./cli/output.js";
import { runCommand } from "./cli/run-command.js";
import { servicesCommand } from "./cli/services-command.js";
import { toolsCommand } from "./cli/tools-command.js";
import { ConfigError, loadConfig } from "./config.js";
import { messageOf } from "./errors.js";
import { createLogger, streamSink, withoutUrlPasswords } from "./log.js";
import { guardProcessExit, guardUncaught, reportUnexpectedExit } from "./process-guard.js";
import { startServer } from "./server.js";
import { loadTracing, traceIdsOf } from "./telemetry/load-tracing.js";
import { HOST_VERSION } from "./version.js";

const USAGE = `cyrnel ${HOST_VERSION}

Usage:
  cyrnel start                      start the server (configured by CYRNEL_* environment variables)
  cyrnel services <command>         list, install, enable, disable, remove, config, secrets, policy
  cyrnel tools list|docs            browse tools and read their documentation
  cyrnel approvals <command>        list, show, approve, deny the calls waiting for an operator
  cyrnel run <file.ts>              run TypeScript on the host and wait for it
  cyrnel keys create|list|revoke    API keys for agents and operators (needs an admin key)
  cyrnel mcp                        serve the MCP tools over stdio (for desktop MCP clients)
  cyrnel version                    print the version
  cyrnel help                       show this help

Client commands reach the host at --url (default CYRNEL_URL, else http://127.0.0.1:9371) with
--api-key (default CYRNEL_API_KEY), and print JSON with --json. \`cyrnel <command> --help\` for more.

Exit codes: 0 ok, 1 process failed (run), 2 usage error, 3 the host answered with an error,
4 the host is unreachable, 124 process timed out (run), 130 process canceled (run).
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start":
      return start(rest);
    case "services":
      return reportErrors(rest, () => servicesCommand(rest));
    case "tools":
      return reportErrors(rest, () => toolsCommand(rest));
    case "approvals":
      return reportErrors(rest, () => approvalsCommand(rest));
    case "run":
      return reportErrors(rest, () => runCommand(rest));
    case "mcp":
      return reportErrors(rest, () => mcpCommand(rest));
    case "keys":
      return reportErrors(rest, () => keysCommand(rest));
    case "version":
    case "--version":
      process.stdout.write(`${HOST_VERSION}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

async function start(_args: string[]): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cyrnel: invalid configuration: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  // Everything the host (and module code in it) creates is its owner's only; see data-dir.ts.
  process.umask(0o077);
  // Traces first (the SDK imported only when OTEL_* asks for them): the log lines of traced work carry their ids.
  const tracing = await loadTracing(config.traces, HOST_VERSION);
  // A log reader that goes away must neither stop nor spin the host (see streamSink).
  const stderr = streamSink(process.stderr);
  const logger = createLogger(
    config.logLevel,
    streamSink(process.stdout, (line) => stderr.write(line)),
    {},
    traceIdsOf(tracing),
  );
  // Module code runs in this process: it may not end it (process-guard.ts), and a start never stops silently.
  const releaseExit = guardProcessExit(logger);
  // Once the host is done, the process ends even if module code still holds a timer, socket or child process.
  const exit = (code: number): never => {
    releaseExit();
    process.exit(code);
  };
  const startup = reportUnexpectedExit(logger);
  // What module code throws from a timer or a promise nobody awaits is logged, and its module disabled once the
  // host is up; the host keeps serving.
  let disableModule = (_id: string, _reason: string): void => {};
  guardUncaught(logger, join(config.dataDir, "modules"), (id, reason) => disableModule(id, reason));
  // Signals are taken from the first moment: one that arrives while the host starts (or between its "listening"
  // line and the next step) stops it gracefully once it is up, instead of Node's default killing it outright.
  let stopRequested: string | null = null;
  let startupDeadline: NodeJS.Timeout | undefined;
  let onSignal = (signal: string): void => {
    stopRequested = signal;
    // A start that does not finish within the shutdown timeout is not waited for.
    startupDeadline ??= setTimeout(() => {
      process.stderr.write(`cyrnel: received ${signal} while starting; stopped\n`);
      exit(1);
    }, config.shutdownTimeoutMs);
  };
  process.once("SIGINT", () => onSignal("SIGINT"));
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { logger, tracing });
  } catch (error) {
    logger.error("could not start", { error: messageOf(error) });
    // Redacted like the log: a database driver's message may carry the URL it could not use.
    process.stderr.write(`cyrnel: could not start: ${withoutUrlPasswords(messageOf(error))}\n`);
    startup.settled();
    return exit(1);
  }
  startup.settled();
  disableModule = (id, reason) => server.disableModule(id, reason);
  return new Promise<number>(() => {
    const stop = (signal: string) => {
      process.stderr.write(`cyrnel: received ${signal}, shutting down\n`);
      server.close().then(
        () => exit(0),
        () => exit(1),
      );
    };
    clearTimeout(startupDeadline);
    onSignal = stop;
    if (stopRequested !== null) stop(stopRequested);
    // Other hosts may already have ended this host's runs: it must not go on as if it were the same host. Its
    // supervisor starts it again, as a new host with a new lease.
    void server.lost.then((reason) => {
      process.stderr.write(`cyrnel: this host lost its cluster lease (${reason}); exiting\n`);
      server.close().then(
        () => exit(1),
        () => exit(1),
      );
    });
  });
}
