/**
 * The definition text `POST /services` takes, built from what the install dialog asks for each bundled adapter:
 * an OpenAPI document as it is (a URL the host downloads, or a file's text), a gRPC service from `.proto` files or
 * a server's reflection, an MCP server by its Streamable HTTP URL or the command that starts it (stdio). An adapter
 * the console does not know gets the generic sources (a URL or a file).
 */

export type Source = "url" | "upload" | "registry" | "protos" | "reflection" | "mcp-http" | "mcp-stdio";

const GENERIC: readonly (readonly [Source, string])[] = [
  ["url", "From a URL"],
  ["upload", "Upload a file"],
  ["registry", "From a registry"],
];

/** The sources the dialog offers for an adapter, the first being the default. */
export function sourcesOf(adapter: string): readonly (readonly [Source, string])[] {
  switch (adapter) {
    case "grpc":
      return [
        ["protos", "Upload .proto files"],
        ["reflection", "Server reflection"],
        ["url", "From a URL"],
      ];
    case "mcp":
      return [
        ["mcp-http", "Streamable HTTP"],
        ["mcp-stdio", "A command (stdio)"],
      ];
    default:
      return GENERIC;
  }
}

/** `{"protos": {path: source}, "target"?}`: each file under its path in the folder given (else its name). */
export function protosDefinition(files: readonly { path: string; text: string }[], target: string): string {
  const protos: Record<string, string> = {};
  for (const file of files) protos[file.path] = file.text;
  return JSON.stringify({ protos, ...(target.trim() && { target: target.trim() }) });
}

/** `{"reflection": "host:port", "tls"}`: the host reads the services from the server at install. */
export function reflectionDefinition(target: string, tls: boolean): string {
  return JSON.stringify({ reflection: target.trim(), tls });
}

export function mcpHttpDefinition(url: string): string {
  return JSON.stringify({ transport: "http", url: url.trim() });
}

/**
 * `{"transport": "stdio", "command", "args", "env"?}`: arguments one per line (so one may hold spaces), environment
 * variables as `NAME=value` lines. The server gets only these variables (and its secrets), never the host's.
 */
export function mcpStdioDefinition(command: string, args: string, env: string): string {
  const variables: Record<string, string> = {};
  for (const line of env.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    const equals = trimmed.indexOf("=");
    if (equals <= 0) throw new Error(`environment line "${trimmed}" is not NAME=value`);
    variables[trimmed.slice(0, equals).trim()] = trimmed.slice(equals + 1);
  }
  return JSON.stringify({
    transport: "stdio",
    command: command.trim(),
    args: args
      .split("\n")
      .map((arg) => arg.trim())
      .filter((arg) => arg !== ""),
    ...(Object.keys(variables).length > 0 && { env: variables }),
  });
}
