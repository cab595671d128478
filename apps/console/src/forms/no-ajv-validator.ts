/**
 * Stands in for @rjsf/validator-ajv8, which @rjsf/core imports only for its test helper (getTestRegistry). ajv
 * compiles schemas with `new Function`, which the console's CSP refuses; the console uses csp-safe-validator.ts.
 * vite.config.ts points the import here so ajv is neither installed nor bundled.
 */
const refuse = (): never => {
  throw new Error("the ajv validator is not part of the console; use cspSafeValidator");
};

export default new Proxy({}, { get: refuse });
