import { isSchemaObject, propertiesOf, propertyKey, requiredOf, type Schema } from "../schema/schema.js";
import { TypeEmitter, type TypeStyle } from "../schema/to-typescript.js";
import { secretsWanted } from "./missing-secrets.js";
import type { ServiceTypes } from "./types-file.js";

export interface IndexOptions {
  maxChars: number;
  /** The host's words for how to ask for less. */
  narrowHint: string | undefined;
  /** Length of the declarations the index stands for. */
  fullChars: number;
}

/** Signature styles, most detailed first; the first whose index fits is used. `null`: parameter names only. */
const SIGNATURE_STYLES: (TypeStyle | null)[] = [
  { comments: false, oneLine: true, maxLevel: 1, maxProperties: 12, maxUnion: 4 },
  { comments: false, oneLine: true, maxLevel: 0, maxProperties: 8, maxUnion: 3 },
  null,
];
const NAMES_STYLE: TypeStyle = { comments: false, oneLine: true, maxLevel: -1, maxUnion: 3 };
/** One tool's line never takes more than this (a single huge input must not crowd out the others). */
const MAX_SIGNATURE_CHARS = 400;

/**
 * What `generateTypes` returns instead of declarations that are too long:
 * an index of the tools, as TypeScript comments (so a client that saves it
 * as a `.d.ts` gets an empty file, not wrong types). It says why, carries
 * the host's hint on how to ask for less, and lists per service each tool's
 * signature, nested objects and named types shortened (`{…}`, `Address`).
 * When even that is too long it falls back, step by step, to the tool ids
 * of each service (cut evenly), then to the services alone; it never
 * exceeds `maxChars`.
 */
export function renderTypesIndex(services: ServiceTypes[], options: IndexOptions): string {
  const toolCount = services.reduce((sum, service) => sum + service.tools.length, 0);
  const head = (what: string) => [
    `// An index, not the declarations: the types of these ${count(toolCount, "tool")} are ${number(options.fullChars)} characters, more than the ${number(options.maxChars)} one answer may have.`,
    `// ${options.narrowHint ?? "Ask for the types of fewer services or tools."}`,
    `// ${what}`,
    "",
  ];
  const fits = (lines: string[]) => {
    const text = lines.join("\n");
    return text.length <= options.maxChars ? text : undefined;
  };

  for (const style of SIGNATURE_STYLES) {
    const lines = head(
      "Per tool: cyrnel.services.<service>.tools.<tool>.invoke(params) → result; named types by name, nested objects as {…}.",
    );
    for (const service of services) lines.push(...signatures(service, style));
    const text = fits(lines);
    if (text !== undefined) return text;
  }

  const idsHead = head("Per service: its tool ids (the signatures do not fit either).");
  const share = Math.floor((options.maxChars - idsHead.join("\n").length) / Math.max(1, services.length)) - 1;
  if (share >= 80) {
    const lines = [...idsHead];
    for (const service of services) {
      const label = `// ${service.serviceId} (${count(service.tools.length, "tool")}): `;
      lines.push(
        label +
          cutList(
            service.tools.map((tool) => tool.toolId),
            share - label.length,
          ),
      );
    }
    const text = fits(lines);
    if (text !== undefined) return text;
  }

  const servicesHead = head("The services (not even their tool ids fit):");
  const budget = options.maxChars - servicesHead.join("\n").length - 4;
  const list = cutList(
    services.map((service) => `${service.serviceId} (${count(service.tools.length, "tool")})`),
    budget,
  );
  return [...servicesHead, `// ${list}`].join("\n").slice(0, options.maxChars);
}

function signatures(service: ServiceTypes, style: TypeStyle | null): string[] {
  const emitter = new TypeEmitter(service.types, style ?? NAMES_STYLE);
  const lines = [`// ${service.serviceId} (${count(service.tools.length, "tool")})`];
  const unauthenticated = service.tools.filter((tool) => tool.missingSecrets !== undefined && tool.policy !== "deny");
  if (unauthenticated.length > 0) {
    // One line for the service (most often every tool needs the same secret), not one per tool.
    const wanted = new Map(unauthenticated.map((tool) => [JSON.stringify(tool.missingSecrets), tool.missingSecrets!]));
    const which =
      unauthenticated.length === service.tools.length
        ? "every tool"
        : cutList(
            unauthenticated.map((tool) => tool.toolId),
            MAX_SIGNATURE_CHARS,
          );
    lines.push(
      `//   not callable yet (${which}): needs ${[...wanted.values()].map(secretsWanted).join("; or ")}, not set; calls fail until an operator sets it`,
    );
  }
  service.tools.forEach((tool, index) => {
    if (tool.policy === "deny") {
      lines.push(`//   ${tool.toolId}: denied by the service's policy (every call fails with 403 tool_denied)`);
      return;
    }
    const params = style === null ? parameterNames(tool.inputSchema) : undefined;
    const line = `//   ${tool.toolId}(params: ${params ?? emitter.root(2 * index)}) → ${emitter.root(2 * index + 1)}`;
    lines.push(line.length <= MAX_SIGNATURE_CHARS ? line : `${line.slice(0, MAX_SIGNATURE_CHARS - 1)}…`);
  });
  return lines;
}

/** `{ city, days? }`: the parameter names, `?` for optional ones; undefined when the input declares none. */
function parameterNames(schema: Schema): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  const properties = propertiesOf(schema);
  if (properties.length === 0) return undefined;
  const required = requiredOf(schema);
  return `{ ${properties.map(([name]) => `${propertyKey(name)}${required.has(name) ? "" : "?"}`).join(", ")} }`;
}

/** `a, b, c, … (N more)` within `budget` characters. */
function cutList(items: string[], budget: number): string {
  let text = "";
  for (let i = 0; i < items.length; i++) {
    const next = text === "" ? items[i]! : `${text}, ${items[i]}`;
    const rest = items.length - i - 1;
    const tail = rest > 0 ? `, … (${rest} more)` : "";
    if (next.length + tail.length > budget) return `${text}${text === "" ? "" : ", "}… (${items.length - i} more)`;
    text = next;
  }
  return text;
}

function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}
