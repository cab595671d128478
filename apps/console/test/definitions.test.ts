import { describe, expect, it } from "vitest";
import {
  mcpHttpDefinition,
  mcpStdioDefinition,
  protosDefinition,
  reflectionDefinition,
  sourcesOf,
} from "../src/forms/definitions.js";

describe("the definitions the install dialog sends", () => {
  it("offers each bundled adapter its own sources, and any other adapter the generic ones", () => {
    expect(sourcesOf("openapi").map(([source]) => source)).toEqual(["url", "upload", "registry"]);
    expect(sourcesOf("grpc").map(([source]) => source)).toEqual(["protos", "reflection", "url"]);
    expect(sourcesOf("mcp").map(([source]) => source)).toEqual(["mcp-http", "mcp-stdio"]);
    expect(sourcesOf("my-adapter").map(([source]) => source)).toEqual(["url", "upload", "registry"]);
  });

  it("gRPC: proto files by path with an optional target, or a reflection target", () => {
    const files = [
      { path: "helloworld.proto", text: 'syntax = "proto3";' },
      { path: "protos/common/types.proto", text: "package common;" },
    ];
    expect(JSON.parse(protosDefinition(files, " 127.0.0.1:50051 "))).toEqual({
      protos: { "helloworld.proto": 'syntax = "proto3";', "protos/common/types.proto": "package common;" },
      target: "127.0.0.1:50051",
    });
    expect(JSON.parse(protosDefinition(files, ""))).not.toHaveProperty("target");
    expect(JSON.parse(reflectionDefinition("api.internal:443", true))).toEqual({
      reflection: "api.internal:443",
      tls: true,
    });
  });

  it("MCP: a Streamable HTTP URL, or a command with arguments one per line and NAME=value variables", () => {
    expect(JSON.parse(mcpHttpDefinition(" http://127.0.0.1:3001/mcp "))).toEqual({
      transport: "http",
      url: "http://127.0.0.1:3001/mcp",
    });
    expect(
      JSON.parse(mcpStdioDefinition("npx", "-y\n@modelcontextprotocol/server-everything\n\nan arg with spaces", "")),
    ).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything", "an arg with spaces"],
    });
    expect(JSON.parse(mcpStdioDefinition("node", "server.js", "LOG=debug\nURL=http://x/?a=b\n")).env).toEqual({
      LOG: "debug",
      URL: "http://x/?a=b",
    });
    expect(() => mcpStdioDefinition("node", "", "not a variable")).toThrow('"not a variable" is not NAME=value');
  });
});
