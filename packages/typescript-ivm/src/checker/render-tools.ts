import type { ToolDocsInput, TypesOptions } from "@cyrnel/sdk";
import { renderServiceFile, renderTypes } from "../docs/types-file.js";
import type { RenderedService } from "./protocol.js";

/** One service's declarations from its tools' JSON (`bindings.serviceTools`): in a render thread, or inline when small. */
export function renderTools(serviceId: string, toolsJson: string): RenderedService {
  return renderServiceFile(serviceId, toolsOf(toolsJson, serviceId));
}

/** `generateTypesFromJson`: the declaration file (or its index) of the tools in the JSON, as `generateTypes` makes it. */
export function renderTypesFromJson(toolsJson: string, options: TypesOptions): string {
  return renderTypes(toolsOf(toolsJson), options);
}

/** The entries of a `ToolDocsInput[]`'s JSON that name a service (this one, when given) and a tool. */
function toolsOf(toolsJson: string, serviceId?: string): ToolDocsInput[] {
  const parsed: unknown = JSON.parse(toolsJson);
  return (Array.isArray(parsed) ? parsed : []).filter(
    (tool): tool is ToolDocsInput =>
      typeof tool === "object" &&
      tool !== null &&
      typeof tool.serviceId === "string" &&
      (serviceId === undefined || tool.serviceId === serviceId) &&
      typeof tool.toolId === "string",
  );
}
