import { describe, expect, it } from "vitest";
import { childEnv, MINIMAL_PATH } from "./env.js";

describe("childEnv", () => {
  it("is the definition's env, then the secrets' env, plus a minimal PATH", () => {
    expect(childEnv({ A: "1", B: "2" }, { B: "secret" })).toEqual({ PATH: MINIMAL_PATH, A: "1", B: "secret" });
  });

  it("keeps a PATH given by the definition or a secret", () => {
    expect(childEnv({ PATH: "/opt/bin" }, {})).toEqual({ PATH: "/opt/bin" });
    expect(childEnv({}, { PATH: "/s/bin" })).toEqual({ PATH: "/s/bin" });
  });

  it("builds PATH from constants and this Node's directory, not the host's PATH", () => {
    expect(MINIMAL_PATH.split(":")).toEqual(expect.arrayContaining(["/usr/local/bin", "/usr/bin", "/bin"]));
    expect(MINIMAL_PATH.split(":")[0]).toBe(process.execPath.slice(0, process.execPath.lastIndexOf("/")));
  });
});
