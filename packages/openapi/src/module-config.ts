import type { JSONSchema } from "@cyrnel/sdk";
import {
  DEFAULT_DEFINITION_HEAP_MB,
  DEFAULT_DEFINITION_TIMEOUT_MS,
  type DefinitionOptions,
} from "./definition-thread.js";
import { MAX_VALUES } from "./limits.js";

/**
 * The module's own config (`PATCH /modules/openapi/config`; a service's
 * config is `config.ts`): the bounds on processing one definition text.
 * The defaults fit every document of the APIs.guru corpus but a few giants;
 * Microsoft Graph v1.0 (20 MB, 11,422 operations, 16 million values once
 * its `$ref`s are expanded) needs them raised — see the README.
 */
export interface ModuleConfig {
  definitionTimeoutMs: number;
  definitionHeapMb: number;
  maxDefinitionValues: number;
}

const OPTIONS = {
  definitionTimeoutMs: {
    default: DEFAULT_DEFINITION_TIMEOUT_MS,
    minimum: 100,
    maximum: 3_600_000,
    description:
      "Deadline for turning one definition text into tools, in ms. Keep it below the host's CYRNEL_INVOKE_TIMEOUT_MS so this error, which names the limit, comes first.",
  },
  definitionHeapMb: {
    default: DEFAULT_DEFINITION_HEAP_MB,
    minimum: 16,
    maximum: 65_536,
    description: "Old-generation heap of the worker thread that processes definitions, in MB.",
  },
  maxDefinitionValues: {
    default: MAX_VALUES,
    minimum: 1_000,
    maximum: 1_000_000_000,
    description:
      "Most values (objects, arrays, scalars) a definition may expand to once YAML aliases and $refs are resolved.",
  },
} as const;

export const MODULE_CONFIG_SCHEMA: JSONSchema = {
  type: "object",
  additionalProperties: false,
  properties: Object.fromEntries(
    Object.entries(OPTIONS).map(([name, option]) => [name, { type: "integer", ...option }]),
  ),
};

/** The module config as definition options; the host has validated it against the schema and applied defaults. */
export function definitionOptions(config: Record<string, unknown>): DefinitionOptions {
  const read = (name: keyof typeof OPTIONS): number => {
    const value = config[name];
    return typeof value === "number" && Number.isInteger(value) ? value : OPTIONS[name].default;
  };
  return {
    timeoutMs: read("definitionTimeoutMs"),
    heapMb: read("definitionHeapMb"),
    maxValues: read("maxDefinitionValues"),
  };
}
