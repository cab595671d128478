/** `cyrnel tools list|docs`: browse the tools of the installed services. */

import { CyrnelApi } from "../client/api-client.js";
import type { ToolRecord } from "../contract/tools.js";
import { COMMON_HELP, parseCommand, positionals, UsageError } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { clip, printJson, printLine, table } from "./output.js";

export const TOOLS_HELP = `Usage:
  cyrnel tools list [--service <service>] [--query <text>]
  cyrnel tools docs <service> <tool>     Markdown reference, rendered by the active environment

--query is a case-insensitive substring of the tool's name or description.

${COMMON_HELP}`;

const segment = encodeURIComponent;

export async function toolsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals: given } = parseCommand(rest, {
    service: { type: "string" },
    query: { type: "string" },
  });
  if (sub === undefined) {
    process.stderr.write(`${TOOLS_HELP}\n`);
    return EXIT.usage;
  }
  if (sub === "help" || sub === "--help" || sub === "-h" || values.help) {
    process.stdout.write(`${TOOLS_HELP}\n`);
    return EXIT.ok;
  }
  const settings = clientSettings(values);
  const api = new CyrnelApi(settings.url, settings.apiKey);

  if (sub === "list") {
    positionals(given, [], "cyrnel tools list [--service <service>] [--query <text>]");
    const tools = await api.listAll<ToolRecord>("/tools", { serviceId: values.service, query: values.query });
    if (values.json) printJson({ items: tools });
    else if (tools.length === 0) printLine("no tools match");
    else
      printLine(
        table(
          ["SERVICE", "TOOL", "STATUS", "POLICY", "NAME"],
          tools.map((tool) => [tool.serviceId, tool.id, toolStatus(tool), tool.policy, clip(tool.name, 70)]),
        ),
      );
    return EXIT.ok;
  }
  if (sub === "docs") {
    if (values.service !== undefined || values.query !== undefined) {
      throw new UsageError("--service and --query belong to tools list");
    }
    const [serviceId, toolId] = positionals(given, ["service", "tool"], "cyrnel tools docs <service> <tool>");
    const markdown = await api.text("GET", `/tools/${segment(serviceId!)}/${segment(toolId!)}/docs`);
    if (values.json) printJson({ serviceId, toolId, markdown });
    else process.stdout.write(markdown.endsWith("\n") ? markdown : `${markdown}\n`);
    return EXIT.ok;
  }
  throw new UsageError(`unknown tools command "${sub}"; see cyrnel tools --help`);
}

function toolStatus(tool: ToolRecord): string {
  if (tool.effectivelyEnabled) return "enabled";
  return tool.enabled ? "service off" : "disabled";
}
