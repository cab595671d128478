import type { ToolDocsInput } from "@cyrnel/sdk";
import { renderServiceFile } from "../docs/types-file.js";
import type { RenderedService } from "./protocol.js";

/** One service's declarations from its tools' JSON (`bindings.serviceTools`): in a render thread, or inline when small. */
export function renderTools(serviceId: string, toolsJson: string): RenderedService {
  const parsed: unknown = JSON.parse(toolsJson);
  const tools = (Array.isArray(parsed) ? parsed : []).filter(
    (tool): tool is ToolDocsInput =>
      typeof tool === "object" && tool !== null && tool.serviceId === serviceId && typeof tool.toolId === "string",
  );
  return renderServiceFile(serviceId, tools);
}
