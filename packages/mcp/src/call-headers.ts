/**
 * Headers of one tool call (its `traceparent`, see the SDK's `traceOutbound`) for the HTTP requests the MCP
 * client sends on its behalf. The client's transports are built once per session with fixed headers and call
 * our `fetch` themselves, so the call's own headers reach that `fetch` through the async context of
 * `client.callTool` rather than through the transport: every request the call causes runs inside it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export const callHeaders = new AsyncLocalStorage<Readonly<Record<string, string>>>();
