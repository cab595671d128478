import { describe, expect, it } from "vitest";
import { toolIds } from "./ids.js";

describe("toolIds", () => {
  it.each([
    [
      "unique names as they are",
      [
        ["a.Greeter", "SayHello"],
        ["a.Greeter", "SayBye"],
      ],
      ["SayHello", "SayBye"],
    ],
    [
      "shared names with the service's name, for every method of that name",
      [
        ["a.One", "Get"],
        ["b.Two", "Get"],
        ["b.Two", "List"],
      ],
      ["One_Get", "Two_Get", "List"],
    ],
    [
      "services of the same name in two packages with the package too",
      [
        ["a.v1.Store", "Get"],
        ["a.v2.Store", "Get"],
      ],
      ["a_v1_Store_Get", "a_v2_Store_Get"],
    ],
    [
      "reserved words with a suffix",
      [
        ["p.S", "delete"],
        ["p.S", "constructor"],
      ],
      ["delete_", "constructor_"],
    ],
  ])("gives %s", (_name, methods, ids) => {
    const input = methods.map(([service, method]) => ({ service: service!, method: method! }));
    expect(toolIds(input)).toEqual(ids);
    // Order does not change a method's id.
    expect(toolIds([...input].reverse())).toEqual([...ids].reverse());
  });

  it("shortens ids past the SDK's limit with a digest", () => {
    const [id] = toolIds([{ service: "p.S", method: `M${"x".repeat(200)}` }]);
    expect(id!.length).toBeLessThanOrEqual(128);
    expect(id).toMatch(/^Mx+_[0-9a-f]{8}$/);
  });
});
