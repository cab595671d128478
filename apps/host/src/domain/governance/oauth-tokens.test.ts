import { describe, expect, it } from "vitest";
import { CyrnelError } from "../../errors.js";
import { callerOfScopes, looksLikeJwt, scopesOf } from "./oauth-tokens.js";

describe("OAuth scopes", () => {
  it("reads a space-separated string or an array", () => {
    expect(scopesOf("openid  cyrnel:agent")).toEqual(["openid", "cyrnel:agent"]);
    expect(scopesOf(["cyrnel:admin", 3])).toEqual(["cyrnel:admin"]);
    expect(scopesOf(undefined)).toEqual([]);
  });

  it("maps the role scopes and the services allow-list", () => {
    expect(callerOfScopes("oauth:a", ["cyrnel:admin", "cyrnel:service:x"])).toEqual({
      keyId: "oauth:a",
      role: "admin",
      services: null,
    });
    expect(callerOfScopes("oauth:a", ["cyrnel:agent"])).toEqual({ keyId: "oauth:a", role: "agent", services: null });
    expect(
      callerOfScopes("oauth:a", ["cyrnel:agent", "cyrnel:service:b", "cyrnel:service:a", "cyrnel:service:b"]),
    ).toEqual({ keyId: "oauth:a", role: "agent", services: ["a", "b"] });
  });

  it("refuses a token with neither role scope, naming the scope to ask for", () => {
    const refuse = () => callerOfScopes("oauth:a", ["openid", "cyrnel:service:x"], "scp");
    expect(refuse).toThrow(CyrnelError);
    expect(refuse).toThrow(/cyrnel:agent.*"scp"/);
  });

  it("tells JWTs from API keys", () => {
    expect(looksLikeJwt("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln")).toBe(true);
    expect(looksLikeJwt("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.")).toBe(true);
    expect(looksLikeJwt("cyk_abc-def_ghi")).toBe(false);
  });
});
