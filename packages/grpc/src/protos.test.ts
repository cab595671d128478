import { describe, expect, it } from "vitest";
import { loadProtos } from "./protos.js";

describe("loadProtos", () => {
  it("resolves imports inside the set and the well-known types", () => {
    const root = loadProtos({
      "a.proto": `syntax = "proto3"; package p; import "google/protobuf/timestamp.proto"; import "q/b.proto";
        message A { google.protobuf.Timestamp t = 1; q.B b = 2; }`,
      "q/b.proto": `syntax = "proto3"; package q; message B {}`,
    });
    expect(root.lookupType("p.A").fields.t!.resolvedType?.fullName).toBe(".google.protobuf.Timestamp");
  });

  it.each([
    ["a parse error", { "a.proto": `syntax = "proto3";\nmessage A {\n  int32 = 1;\n}` }, "a.proto:3: illegal name '='"],
    [
      "an unknown type",
      { "a.proto": `syntax = "proto3";\npackage p;\nmessage A {\n  Missing m = 1;\n}` },
      'a.proto:4: unknown type "Missing" (used in p.A)',
    ],
    [
      "an import outside the set",
      { "a.proto": `syntax = "proto3";\nimport "nope/x.proto";\n` },
      'a.proto:2: imports "nope/x.proto", which is neither',
    ],
    [
      "a name defined twice",
      {
        "a.proto": `syntax = "proto3";\npackage p;\nmessage A {}`,
        "b.proto": `syntax = "proto3";\npackage p;\n\nmessage A {}`,
      },
      "b.proto:4: duplicate name 'A'",
    ],
  ])("names file, line and problem for %s", (_name, files, message) => {
    expect(() => loadProtos(files)).toThrow(message);
  });
});
