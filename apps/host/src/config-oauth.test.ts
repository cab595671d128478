import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("OAuth configuration", () => {
  it("is off without CYRNEL_OAUTH_ISSUER", () => {
    expect(loadConfig({ CYRNEL_ADVERTISE_URL: "https://cyrnel.example.com" }).oauth).toBeNull();
  });

  it("takes the resource from CYRNEL_ADVERTISE_URL and accepts it with /mcp as the audience", () => {
    expect(
      loadConfig({
        CYRNEL_OAUTH_ISSUER: "https://login.example.com/realms/main",
        CYRNEL_ADVERTISE_URL: "https://cyrnel.example.com/",
      }).oauth,
    ).toEqual({
      issuer: "https://login.example.com/realms/main",
      resource: "https://cyrnel.example.com",
      audiences: ["https://cyrnel.example.com", "https://cyrnel.example.com/mcp"],
      scopesClaim: "scope",
    });
    expect(
      loadConfig({
        CYRNEL_OAUTH_ISSUER: "https://login.example.com/",
        CYRNEL_ADVERTISE_URL: "https://cyrnel.example.com",
        CYRNEL_OAUTH_AUDIENCE: "api://cyrnel",
        CYRNEL_OAUTH_SCOPES_CLAIM: "scp",
      }).oauth,
    ).toMatchObject({ audiences: ["api://cyrnel"], scopesClaim: "scp" });
  });

  it.each([
    [{ CYRNEL_OAUTH_ISSUER: "https://login.example.com" }, "CYRNEL_OAUTH_ISSUER", "CYRNEL_ADVERTISE_URL"],
    [
      { CYRNEL_OAUTH_ISSUER: "login.example.com", CYRNEL_ADVERTISE_URL: "https://c.example" },
      "CYRNEL_OAUTH_ISSUER",
      "URL",
    ],
    [
      { CYRNEL_OAUTH_ISSUER: "https://l.example", CYRNEL_ADVERTISE_URL: "ftp://c.example" },
      "CYRNEL_ADVERTISE_URL",
      "http",
    ],
    [{ CYRNEL_OAUTH_AUDIENCE: "api://cyrnel" }, "CYRNEL_OAUTH_AUDIENCE", "CYRNEL_OAUTH_ISSUER"],
    [
      {
        CYRNEL_OAUTH_ISSUER: "https://l.example",
        CYRNEL_ADVERTISE_URL: "https://c.example",
        CYRNEL_OAUTH_SCOPES_CLAIM: "a b",
      },
      "CYRNEL_OAUTH_SCOPES_CLAIM",
      "claim name",
    ],
  ])("refuses %o naming %s", (env, variable, mentions) => {
    let thrown: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe(variable);
    expect((thrown as ConfigError).message).toContain(mentions);
  });
});
