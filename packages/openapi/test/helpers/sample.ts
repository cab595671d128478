import type { JSONSchema } from "@cyrnel/sdk";
import { JSONSchemaFaker } from "json-schema-faker";
import { hostAjv } from "./ajv.js";

/**
 * Valid parameters for a tool, generated from its `inputSchema` with
 * json-schema-faker: every optional property is filled (so encodings of
 * arrays, objects and bodies are exercised), randomness is seeded (the same
 * schema gives the same parameters on every run), and the result is kept
 * only when the host's ajv accepts it; a few seeds are tried.
 */

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const ajv = hostAjv(false);

/** mulberry32: a small deterministic PRNG. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sampleParameters(inputSchema: JSONSchema): Record<string, unknown> | undefined {
  const validate = ajv.compile(inputSchema);
  for (const seed of SEEDS) {
    JSONSchemaFaker.option({
      random: seeded(seed),
      alwaysFakeOptionals: seed <= SEEDS.length / 2,
      optionalsProbability: seed <= SEEDS.length / 2 ? 1 : 0,
      requiredOnly: seed > SEEDS.length / 2,
      useExamplesValue: false,
      useDefaultValue: false,
      failOnInvalidTypes: false,
      failOnInvalidFormat: false,
      ignoreMissingRefs: true,
      fillProperties: false,
      minItems: 1,
      maxItems: 2,
      refDepthMax: 3,
      omitNulls: true,
    });
    let value: unknown;
    try {
      value = JSONSchemaFaker.generate(structuredClone(inputSchema) as never);
    } catch {
      continue;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value) && validate(structuredClone(value))) {
      return value as Record<string, unknown>;
    }
  }
  return undefined;
}
