/**
 * The `cyrnel` command. `start` runs the server; the client commands talk
 * to a running host over HTTP. Returns the exit code.
 */
import { ConfigError, loadConfig } from "./config.js";
import { startServer } from "./server.js";
import { HOST_VERSION } from "./version.js";

const USAGE = `cyrnel ${HOST_VERSION}

Usage:
  cyrnel start            start the server (configured by CYRNEL_* environment variables)
  cyrnel version          print the version
  cyrnel help             show this help
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "start":
      return start(rest);
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
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config);
  } catch (error) {
    process.stderr.write(`cyrnel: could not start: ${(error as Error).message}\n`);
    return 1;
  }
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`cyrnel: received ${signal}, shutting down\n`);
      server.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
