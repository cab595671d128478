/** `cyrnel keys create|list|revoke`: the host's stored API keys (needs an admin key). */

import { CyrnelApi } from "../client/api-client.js";
import type { CreatedKey, KeyRecord, KeyRole } from "../contract/keys.js";
import { COMMON_HELP, parseCommand, positionals, UsageError } from "./args.js";
import { clientSettings } from "./client-config.js";
import { EXIT } from "./exit-codes.js";
import { clip, note, printJson, printLine, table } from "./output.js";

export const KEYS_HELP = `Usage:
  cyrnel keys create --name <name> --role agent|admin [--services <id>,<id>...] [--expires <ISO-8601>]
  cyrnel keys list
  cyrnel keys revoke <key-id>

create prints the new key on stdout (with --json: the key's record with the key). It is shown only this once:
the host keeps its SHA-256 alone. --services (agent keys only) limits the services the key sees and calls;
--services "" allows none. --expires is a date-time with a zone, e.g. 2026-12-31T23:59:59Z.
Without CYRNEL_API_KEY on the host, the first key must be an admin key: it turns authentication on.
list shows live keys; revoked ones stay on the host's list (GET /keys) as revoked.

${COMMON_HELP}`;

const ROLES: readonly KeyRole[] = ["agent", "admin"];
const segment = encodeURIComponent;

export async function keysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals: given } = parseCommand(rest, {
    name: { type: "string" },
    role: { type: "string" },
    services: { type: "string" },
    expires: { type: "string" },
  });
  if (sub === undefined) {
    process.stderr.write(`${KEYS_HELP}\n`);
    return EXIT.usage;
  }
  if (sub === "help" || sub === "--help" || sub === "-h" || values.help) {
    process.stdout.write(`${KEYS_HELP}\n`);
    return EXIT.ok;
  }
  if (sub !== "create" && [values.name, values.role, values.services, values.expires].some((v) => v !== undefined)) {
    throw new UsageError("--name, --role, --services and --expires belong to keys create");
  }
  const settings = clientSettings(values);
  const api = new CyrnelApi(settings.url, settings.apiKey);

  if (sub === "create") {
    const usage = "cyrnel keys create --name <name> --role agent|admin [--services <ids>] [--expires <ISO-8601>]";
    positionals(given, [], usage);
    if (values.name === undefined) throw new UsageError(`missing --name; usage: ${usage}`);
    const role = values.role as KeyRole | undefined;
    if (role === undefined || !ROLES.includes(role))
      throw new UsageError(`--role must be agent or admin; usage: ${usage}`);
    const services = values.services?.split(",").flatMap((id) => (id.trim() === "" ? [] : [id.trim()]));
    const created = await api.json<CreatedKey>("POST", "/keys", {
      body: { name: values.name, role, services, expiresAt: values.expires },
    });
    if (values.json) printJson(created);
    else printLine(created.key);
    note(
      `created ${describe(created)} as ${created.id}. The key is shown only this once (the host keeps its hash ` +
        "alone): store it now.",
    );
    return EXIT.ok;
  }
  if (sub === "list") {
    positionals(given, [], "cyrnel keys list");
    // Live keys only: a revoked key keeps its record on the host (GET /keys lists it), but cannot be used again.
    const keys = await api.listAll<KeyRecord>("/keys", { revoked: "false" });
    if (values.json) printJson({ items: keys });
    else if (keys.length === 0) printLine("no live stored keys (CYRNEL_API_KEY is never listed)");
    else
      printLine(
        table(
          ["ID", "ROLE", "SERVICES", "EXPIRES", "LAST USED", "NAME"],
          keys.map((key) => [
            key.id,
            key.role,
            key.services === null ? "all" : key.services.join(",") || "none",
            key.expiresAt ?? "never",
            key.lastUsedAt ?? "never",
            clip(key.name, 50),
          ]),
        ),
      );
    return EXIT.ok;
  }
  if (sub === "revoke") {
    const [id] = positionals(given, ["key-id"], "cyrnel keys revoke <key-id>");
    await api.json("DELETE", `/keys/${segment(id!)}`);
    if (values.json) printJson({ id, revoked: true });
    else printLine(`revoked ${id}`);
    return EXIT.ok;
  }
  throw new UsageError(`unknown keys command "${sub}"; see cyrnel keys --help`);
}

function describe(key: KeyRecord): string {
  const services =
    key.role === "agent" && key.services !== null ? `, services: ${key.services.join(", ") || "none"}` : "";
  const expires = key.expiresAt === null ? "" : `, expires ${key.expiresAt}`;
  return `${key.role} key "${key.name}"${services}${expires}`;
}
