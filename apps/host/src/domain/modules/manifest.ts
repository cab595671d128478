/** Validation of module manifests: `module.json` of custom modules and `manifest` exports of built-ins. */
import type { ModuleManifest, ModuleType } from "@cyrnel/sdk";
import semver from "semver";
import type { SchemaValidator } from "../../lib/json-schema.js";

export const MODULE_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const MANIFEST_SCHEMA = {
  type: "object",
  required: ["id", "name", "type", "version"],
  properties: {
    id: { type: "string", pattern: MODULE_ID.source },
    name: { type: "string", minLength: 1 },
    description: { type: "string" },
    type: { enum: ["adapter", "environment"] },
    version: { type: "string" },
    main: { type: "string", minLength: 1 },
    configSchema: { type: "object" },
    secretsSchema: { type: "object" },
    engines: { type: "object", properties: { cyrnel: { type: "string" } } },
  },
};

export interface ValidManifest extends ModuleManifest {
  description: string;
}

/** Returns the manifest with defaults filled in, or throws an Error describing every problem found. */
export function validateManifest(
  raw: unknown,
  validator: SchemaValidator,
  options: { requireMain: boolean; hostVersion: string },
): ValidManifest {
  const result = validator.validate(MANIFEST_SCHEMA, raw);
  if (!result.valid) throw new Error(`invalid manifest: ${result.errors.map((issue) => issue.message).join("; ")}`);
  const manifest = result.value as ValidManifest;
  manifest.description ??= "";
  if (!semver.valid(manifest.version)) throw new Error(`invalid manifest: version "${manifest.version}" is not semver`);
  if (options.requireMain && !manifest.main) throw new Error(`invalid manifest: "main" is required in module.json`);
  for (const key of ["configSchema", "secretsSchema"] as const) {
    const schema = manifest[key];
    const problem = schema && validator.checkSchema(schema);
    if (problem) throw new Error(`invalid manifest: ${key} is not a valid JSON Schema: ${problem}`);
  }
  const range = manifest.engines?.cyrnel;
  if (range !== undefined) {
    if (!semver.validRange(range)) throw new Error(`invalid manifest: engines.cyrnel "${range}" is not a semver range`);
    if (
      !semver.satisfies(semver.coerce(options.hostVersion) ?? options.hostVersion, range, { includePrerelease: true })
    ) {
      throw new Error(`module requires cyrnel ${range}, this host is ${options.hostVersion}`);
    }
  }
  return manifest;
}

const METHODS: Record<ModuleType, string[]> = {
  adapter: ["setup", "teardown", "generateDefinition", "hydrateService", "dehydrateService", "invoke"],
  environment: ["setup", "teardown", "execute", "kill", "generateDocs", "generateToolDocs"],
};

/** Checks that an instance has every method its module type requires. */
export function checkInstance(instance: unknown, type: ModuleType): void {
  if (typeof instance !== "object" || instance === null) throw new Error("instantiate() did not return an object");
  const missing = METHODS[type].filter((method) => typeof (instance as Record<string, unknown>)[method] !== "function");
  if (missing.length > 0) throw new Error(`instantiate() returned an ${type} without ${missing.join(", ")}`);
}
