/** `cyrnel services ...`: install, list, enable, disable, remove, configure services and set their secrets. */
import { readFileSync } from "node:fs";
import { CyrnelApi } from "../client/api-client.js";
import type { SecretNames } from "../contract/common.js";
import type { InstalledService, ServiceDetail, ServiceRecord } from "../contract/services.js";
import { COMMON_HELP, COMMON_OPTIONS, parse, parseCommand, positionals, UsageError } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { clip, note, printJson, printLine, table } from "./output.js";
import { withProgress } from "./progress.js";
import { readAll, readSecret } from "./secret-input.js";

export const SERVICES_HELP = `Usage:
  cyrnel services list [--query <text>]
  cyrnel services install --id <id> (--url <definition-url> | --file <path>|-) [--adapter openapi] [--enable]
  cyrnel services enable <service>
  cyrnel services disable <service>
  cyrnel services remove <service>
  cyrnel services config get <service>
  cyrnel services config set <service> <key>=<value>...   (values are JSON when they parse, else strings;
                                                          <key>=null removes a key)
  cyrnel services config set <service> --json '<object>'  (a JSON merge patch)
  cyrnel services secrets list <service>
  cyrnel services secrets set <service> <name>            (the value comes from stdin, or a hidden prompt)
  cyrnel services policy get <service>
  cyrnel services policy set <service> (--file <path>|- | --json '<policy>')

install: --url is the definition's URL (the host then comes from --host-url or CYRNEL_URL);
--file - reads the definition from stdin. config get/set print the resulting config as JSON.
policy: what happens to a call of each tool, as JSON: {"default": "allow"|"ask"|"deny", "rules":
[{"tools"?: "<glob>", "readOnly"?: bool, "destructive"?: bool, "action": "allow"|"ask"|"deny"}]}; the
first rule that matches a tool decides, else default (allow when absent). set replaces the whole policy
(from a file, stdin with --file -, or --json) and prints it; e.g. allow reads, ask for everything else:
  cyrnel services policy set github --json '{"default":"ask","rules":[{"readOnly":true,"action":"allow"}]}'
"tools" globs match whole tool ids: * is any run of characters, ? one character.

${COMMON_HELP}`;

const segment = encodeURIComponent;

export async function servicesCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "list":
      return list(rest);
    case "install":
      return install(rest);
    case "enable":
    case "disable":
      return setEnabled(rest, sub === "enable");
    case "remove":
      return remove(rest);
    case "config":
      return config(rest);
    case "secrets":
      return secrets(rest);
    case "policy":
      return policy(rest);
    case undefined:
      process.stderr.write(`${SERVICES_HELP}\n`);
      return EXIT.usage;
    case "help":
    case "--help":
    case "-h":
      return help();
    default:
      throw new UsageError(`unknown services command "${sub}"; see cyrnel services --help`);
  }
}

const api = (values: { url?: string; "api-key"?: string }) => {
  const settings = clientSettings(values);
  return new CyrnelApi(settings.url, settings.apiKey);
};

const status = (service: ServiceRecord) => (service.stale ? "stale" : service.enabled ? "enabled" : "disabled");

async function list(args: string[]): Promise<number> {
  const { values, positionals: extra } = parseCommand(args, { query: { type: "string" } });
  if (values.help) return help();
  positionals(extra, [], "cyrnel services list [--query <text>]");
  const services = await api(values).listAll<ServiceRecord>("/services", { query: values.query });
  if (values.json) printJson({ items: services });
  else if (services.length === 0) printLine(values.query ? "no services match" : "no services installed");
  else
    printLine(
      table(
        ["ID", "STATUS", "ADAPTER", "TOOLS", "NAME"],
        services.map((s) => [s.id, status(s), s.adapter, String(s.toolCount), clip(s.name, 60)]),
      ),
    );
  return EXIT.ok;
}

async function install(args: string[]): Promise<number> {
  const { values, positionals: extra } = parseCommand(args, {
    id: { type: "string" },
    adapter: { type: "string", default: "openapi" },
    url: { type: "string" },
    file: { type: "string" },
    enable: { type: "boolean" },
    "host-url": { type: "string" },
  });
  if (values.help) return help();
  const usage = "cyrnel services install --id <id> (--url <url> | --file <path>) [--adapter <id>] [--enable]";
  positionals(extra, [], usage);
  if (!values.id) throw new UsageError(`missing --id; usage: ${usage}`);
  // Here --url names the definition (what people reach for when installing), so the host is --host-url or CYRNEL_URL.
  if ((values.url === undefined) === (values.file === undefined)) {
    throw new UsageError(`pass exactly one of --url and --file; usage: ${usage}`);
  }
  const source =
    values.url !== undefined
      ? { url: values.url }
      : { definition: values.file === "-" ? await readAll(process.stdin) : readInputFile(values.file!) };
  const client = api({ url: values["host-url"], "api-key": values["api-key"] });
  const service = await withProgress(`installing ${values.id}`, !values.json, () =>
    client.json<InstalledService>("POST", "/services", {
      body: { id: values.id, adapter: values.adapter, ...source, ...(values.enable && { enabled: true }) },
    }),
  );
  if (values.json) printJson(service);
  else {
    printLine(`installed ${service.id} (${service.name}): ${service.toolCount} tools, ${status(service)}`);
    if (!service.enabled && !service.enableError) note(`enable it with: cyrnel services enable ${service.id}`);
  }
  if (service.enableError) {
    note(
      `cyrnel: installed ${service.id} but could not enable it: ${service.enableError.error} (${service.enableError.code})`,
    );
    return EXIT.apiError;
  }
  return EXIT.ok;
}

/** A file the command reads (a definition, a policy). */
function readInputFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

async function setEnabled(args: string[], enabled: boolean): Promise<number> {
  const { values, positionals: given } = parseCommand(args, {});
  if (values.help) return help();
  const [id] = positionals(given, ["service"], `cyrnel services ${enabled ? "enable" : "disable"} <service>`);
  const service = await api(values).json<ServiceDetail>("POST", `/services/${segment(id!)}/enabled`, {
    body: { enabled },
  });
  if (values.json) printJson(service);
  else printLine(`${service.id} is ${status(service)}`);
  return EXIT.ok;
}

async function remove(args: string[]): Promise<number> {
  const { values, positionals: given } = parseCommand(args, {});
  if (values.help) return help();
  const [id] = positionals(given, ["service"], "cyrnel services remove <service>");
  await api(values).json("DELETE", `/services/${segment(id!)}`);
  if (values.json) printJson({ id, removed: true });
  else printLine(`removed ${id}`);
  return EXIT.ok;
}

async function config(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === "get") {
    const { values, positionals: given } = parseCommand(rest, {});
    if (values.help) return help();
    const [id] = positionals(given, ["service"], "cyrnel services config get <service>");
    printJson(await api(values).json("GET", `/services/${segment(id!)}/config`));
    return EXIT.ok;
  }
  if (action !== "set") throw new UsageError("usage: cyrnel services config get|set <service> ...");
  // Here --json carries the patch (the result is printed as JSON anyway), so it is a string option.
  const { values, positionals: given } = parse({
    args: rest,
    options: { ...COMMON_OPTIONS, json: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return help();
  const [id, ...pairs] = given;
  const usage = "cyrnel services config set <service> (<key>=<value>... | --json '<object>')";
  if (id === undefined) throw new UsageError(`missing <service>; usage: ${usage}`);
  if ((values.json === undefined) === (pairs.length === 0)) {
    throw new UsageError(`pass either <key>=<value> pairs or --json; usage: ${usage}`);
  }
  const patch = values.json === undefined ? patchFromPairs(pairs) : jsonObject(values.json, "--json", "a merge patch");
  printJson(await api(values).json("PATCH", `/services/${segment(id)}/config`, { body: patch }));
  return EXIT.ok;
}

/** `key=value` pairs → a merge patch; values that parse as JSON are JSON (`port=8080`, `tags=["a"]`, `x=null`). */
export function patchFromPairs(pairs: string[]): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`expected <key>=<value>, got "${pair}"`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself (`baseUrl=https://...`).
    }
    patch[pair.slice(0, at)] = value;
  }
  return patch;
}

/** `text` as a JSON object, or a usage error naming `source` and saying what it should be. */
function jsonObject(text: string, source: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${source} must be a JSON object (${what})`);
  }
  return value as Record<string, unknown>;
}

async function policy(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === "get") {
    const { values, positionals: given } = parseCommand(rest, {});
    if (values.help) return help();
    const [id] = positionals(given, ["service"], "cyrnel services policy get <service>");
    printJson(await api(values).json("GET", `/services/${segment(id!)}/policy`));
    return EXIT.ok;
  }
  if (action !== "set") throw new UsageError("usage: cyrnel services policy get|set <service> ...");
  // As for config set, --json carries the policy itself (the result is printed as JSON anyway).
  const { values, positionals: given } = parse({
    args: rest,
    options: { ...COMMON_OPTIONS, json: { type: "string" }, file: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return help();
  const usage = "cyrnel services policy set <service> (--file <path>|- | --json '<policy>')";
  const [id] = positionals(given, ["service"], usage);
  if ((values.json === undefined) === (values.file === undefined)) {
    throw new UsageError(`pass exactly one of --file and --json; usage: ${usage}`);
  }
  const text =
    values.json ?? (values.file === "-" ? await readAll(process.stdin) : readInputFile(values.file as string));
  const body = jsonObject(text, values.json === undefined ? `--file ${values.file}` : "--json", "a policy");
  printJson(await api(values).json("PUT", `/services/${segment(id!)}/policy`, { body }));
  return EXIT.ok;
}

async function secrets(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals: given } = parseCommand(rest, {});
  if (values.help) return help();
  if (action === "list") {
    const [id] = positionals(given, ["service"], "cyrnel services secrets list <service>");
    const result = await api(values).json<SecretNames>("GET", `/services/${segment(id!)}/secrets`);
    if (values.json) printJson(result);
    else printLine(result.set.length === 0 ? "no secrets set" : result.set.join("\n"));
    return EXIT.ok;
  }
  if (action !== "set") throw new UsageError("usage: cyrnel services secrets list|set <service> ...");
  const [id, name] = positionals(given, ["service", "name"], "cyrnel services secrets set <service> <name>");
  const client = api(values);
  const value = await readSecret(`Value of ${name} for ${id} (not echoed): `);
  const result = await client.json<SecretNames>("PATCH", `/services/${segment(id!)}/secrets`, {
    body: { [name!]: value },
  });
  if (values.json) printJson(result);
  else printLine(`set secret ${name} on ${id}`);
  return EXIT.ok;
}

function help(): number {
  process.stdout.write(`${SERVICES_HELP}\n`);
  return EXIT.ok;
}
