/**
 * Operators' overrides of a tool's input constraints. An API's document is
 * sometimes wrong about what the API accepts (Petstore's caps `orderId` at
 * 10 while the API serves order 101), and the host refuses every call the
 * document forbids: an override is a JSON Merge Patch (RFC 7396) over the
 * input schema the adapter made from the document, set per tool with a
 * reason, and recorded (who, when, why, and the document's schema, shown
 * with the tool). The patched schema is the tool's schema for every reader —
 * validation, types, docs, tool lists — and an update of the service
 * applies it to the new document's schema.
 */
import type { Logger } from "@cyrnel/sdk";
import { CyrnelError, messageOf } from "../../errors.js";
import type { SchemaValidator } from "../../lib/json-schema.js";
import { mergePatch } from "../../lib/merge-patch.js";
import type { Caller } from "../governance/caller.js";
import type { InputOverrideRow, ServiceStore, ToolRow } from "./service-store.js";

/** Who set an override when the caller has no stored key (the bootstrap key, or a host without authentication). */
export const BOOTSTRAP_SETTER = "bootstrap";

export class InputOverrides {
  constructor(
    private readonly store: Pick<ServiceStore, "inputOverride" | "setInputOverride" | "removeInputOverride">,
    private readonly validator: Pick<SchemaValidator, "compile">,
    private readonly logger: Logger,
  ) {}

  of(tool: Pick<ToolRow, "serviceId" | "id">): Promise<InputOverrideRow | undefined> {
    return this.store.inputOverride(tool.serviceId, tool.id);
  }

  /** Sets (or replaces) the tool's override; a patch that leaves no usable schema is a 400 naming why. */
  async set(tool: ToolRow, patch: Record<string, unknown>, reason: string, caller: Caller): Promise<void> {
    const name = `${tool.serviceId}.${tool.id}`;
    const existing = await this.of(tool);
    // Always over the document's schema: a second override replaces the first, it does not stack on it.
    const original = existing?.original ?? tool.inputSchema;
    const patched = mergePatch(original, patch);
    if (typeof patched !== "object" || patched === null || Array.isArray(patched)) {
      throw new CyrnelError("validation_failed", `the patch leaves the input schema of ${name} without an object`);
    }
    try {
      this.validator.compile(patched as Record<string, unknown>, { applyDefaults: false });
    } catch (error) {
      throw new CyrnelError(
        "validation_failed",
        `the patched input schema of ${name} is not a JSON Schema the host can use: ${messageOf(error)}`,
      );
    }
    const setBy = caller.keyId ?? BOOTSTRAP_SETTER;
    await this.store.setInputOverride(
      { serviceId: tool.serviceId, toolId: tool.id, patch, original, reason, setBy, setAt: new Date().toISOString() },
      patched as Record<string, unknown>,
    );
    this.logger.info("tool input constraints overridden", { tool: name, reason, setBy });
  }

  /** Back to the document's schema; a 404 when the tool has no override. */
  async remove(tool: ToolRow, caller: Caller): Promise<void> {
    if (!(await this.store.removeInputOverride(tool.serviceId, tool.id))) {
      throw new CyrnelError("not_found", `tool ${tool.serviceId}.${tool.id} has no input override`);
    }
    this.logger.info("tool input override removed", {
      tool: `${tool.serviceId}.${tool.id}`,
      by: caller.keyId ?? BOOTSTRAP_SETTER,
    });
  }
}
