/** Flag parsing for the client commands (node:util parseArgs), with the flags every command accepts. */
import { type ParseArgsConfig, parseArgs } from "node:util";

type OptionConfig = NonNullable<ParseArgsConfig["options"]>[string];

/** A mistake in how the command was called: printed with a pointer to the help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const COMMON_OPTIONS = {
  url: { type: "string" },
  "api-key": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, OptionConfig>;

export const COMMON_HELP = `Common flags:
  --url <url>        host URL (default CYRNEL_URL, else http://127.0.0.1:9371)
  --api-key <key>    API key (default CYRNEL_API_KEY; prefer the variable, argv is visible to other users)
  --json             machine-readable output on stdout
  -h, --help         show help`;

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;
type CommandConfig<O> = { args: string[]; options: typeof COMMON_OPTIONS & O; allowPositionals: true; strict: true };

export function parseCommand<const O extends Record<string, OptionConfig>>(
  args: string[],
  options: O,
): Parsed<CommandConfig<O>> {
  return parse({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
}

/** parseArgs with its errors turned into usage errors. */
export function parse<const T extends ParseArgsConfig>(config: T): Parsed<T> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The positional arguments, exactly `names.length` of them. */
export function positionals(values: string[], names: string[], usage: string): string[] {
  if (values.length !== names.length) {
    const missing = names.slice(values.length);
    throw new UsageError(
      missing.length > 0
        ? `missing ${missing.map((name) => `<${name}>`).join(" ")}; usage: ${usage}`
        : `unexpected argument "${values[names.length]}"; usage: ${usage}`,
    );
  }
  return values;
}
