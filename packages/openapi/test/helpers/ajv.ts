import AjvDraft7 from "ajv";
import addFormatsPlugin from "ajv-formats";

// ajv and ajv-formats are CommonJS with `exports.default`; under NodeNext the default import is the module object.
type AjvInstance = InstanceType<typeof AjvDraft7.default>;
const addFormats = addFormatsPlugin as unknown as (ajv: AjvInstance) => AjvInstance;

/**
 * An ajv configured like the host's draft-07 engine (strict: false,
 * ajv-formats). Config is validated with defaults applied; tool parameters
 * as sent (`useDefaults: false`), like the host's tool gate.
 */
export function hostAjv(useDefaults = true): AjvInstance {
  return addFormats(new AjvDraft7.default({ strict: false, allErrors: true, useDefaults, logger: false }));
}
