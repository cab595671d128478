// @ts-check
/**
 * The json-http adapter module: plain JSON-over-HTTP APIs described by a
 * small JSON descriptor (see descriptor.js). Written only against the
 * `@cyrnel/sdk` types, which are erased at run time, so the module folder
 * needs no node_modules when the host loads it.
 */
import { parseDescriptor } from "./descriptor.js";
import { callEndpoint } from "./request.js";

/** @typedef {import("@cyrnel/sdk").AdapterModule} AdapterModule */
/** @typedef {import("@cyrnel/sdk").ServiceState} ServiceState */
/** @typedef {import("./descriptor.js").ServiceDomain} ServiceDomain */
/** @typedef {import("./descriptor.js").EndpointDomain} EndpointDomain */
/** @typedef {import("./request.js").ServiceConfig} ServiceConfig */

/** @implements {AdapterModule} */
class JsonHttpAdapter {
  /** @type {Map<string, ServiceState>} */
  services = new Map();

  /** @param {import("@cyrnel/sdk").ModuleSetupContext} context */
  async setup(context) {
    context.logger.debug("json-http adapter ready");
  }

  async teardown() {
    this.services.clear();
  }

  /** @param {string} input */
  async generateDefinition(input) {
    return parseDescriptor(input);
  }

  /** @param {ServiceState} state */
  async hydrateService(state) {
    // Replace, never merge: the snapshot is the whole truth about the service.
    this.services.set(state.id, state);
  }

  /** @param {string} id */
  async dehydrateService(id) {
    this.services.delete(id);
  }

  /** @param {import("@cyrnel/sdk").InvokeInput} input */
  async invoke({ serviceId, toolId, parameters }) {
    const state = this.services.get(serviceId);
    if (!state) throw new Error(`service "${serviceId}" is not hydrated`);
    const tool = state.tools[toolId];
    if (!tool) throw new Error(`service "${serviceId}" has no tool "${toolId}"`);
    const domain = /** @type {ServiceDomain} */ (/** @type {unknown} */ (state.adapterDomain));
    const token = state.secrets.token;
    const { body } = await callEndpoint(
      {
        config: /** @type {ServiceConfig} */ (/** @type {unknown} */ (state.config)),
        auth: domain.auth,
        token: typeof token === "string" ? token : undefined,
      },
      /** @type {EndpointDomain} */ (/** @type {unknown} */ (tool.adapterDomain)),
      parameters,
    );
    return body;
  }
}

/** @returns {AdapterModule} */
export function instantiate() {
  return new JsonHttpAdapter();
}
