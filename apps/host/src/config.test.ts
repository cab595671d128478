import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it.each([
    ["CYRNEL_SECRETS_KEY", "not-base64!", "base64"],
    ["CYRNEL_SECRETS_KEY", Buffer.alloc(16).toString("base64"), "got 16"],
    ["CYRNEL_PORT", "http", ""],
    ["CYRNEL_PORT", "70000", ""],
    ["CYRNEL_LOG_LEVEL", "chatty", ""],
    ["CYRNEL_INVOKE_TIMEOUT_MS", "-5", ""],
    ["CYRNEL_SECRETS_PREVIOUS_KEYS", "abc", ""],
    ["CYRNEL_MODULE_LOAD_TIMEOUT_MS", "0", ""],
    ["CYRNEL_DOWNLOAD_DENY_PRIVATE", "maybe", ""],
    ["CYRNEL_APPROVAL_TIMEOUT_MS", "0", ""],
    ["CYRNEL_APPROVAL_TIMEOUT_MS", "2147483648", ""],
    ["CYRNEL_CALLS_RETENTION_DAYS", "0", ""],
    ["CYRNEL_CALLS_RETENTION_DAYS", "a week", ""],
    ["CYRNEL_ALLOW_ANONYMOUS", "yes please", ""],
    ["CYRNEL_DATABASE_URL", "mysql://root:hunter2@db/cyrnel", "postgres://"],
    ["CYRNEL_DATABASE_URL", "not a url hunter2", "not a URL"],
    ["CYRNEL_MCP_WAIT_MS", "-1", "must be an integer"],
    ["CYRNEL_MCP_WAIT_MS", "2147483648", "between 0 and 2147483647"],
  ])("refuses %s=%s with an error naming the variable", (variable, value, mentions) => {
    let thrown: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable.startsWith(variable)).toBe(true);
    expect((thrown as ConfigError).message).toContain(variable);
    expect((thrown as ConfigError).message).toContain(mentions);
    expect((thrown as ConfigError).message).not.toContain("hunter2");
  });

  it("takes a PostgreSQL URL as it is, and SQLite when none is set", () => {
    const url = "postgresql://cyrnel:secret@127.0.0.1:5432/cyrnel?sslmode=disable";
    expect(loadConfig({ CYRNEL_DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(loadConfig({ CYRNEL_DATABASE_URL: "postgres://db/cyrnel" }).databaseUrl).toBe("postgres://db/cyrnel");
    expect(loadConfig({}).databaseUrl).toBeNull();
  });

  it("takes the defaults for unset and blank variables", () => {
    expect(loadConfig({ CYRNEL_PORT: "  " })).toMatchObject({
      port: 9371,
      logLevel: "info",
      secretsKey: null,
      approvalTimeoutMs: 600_000,
      callsRetentionDays: 30,
      allowAnonymous: false,
      mcpWaitMs: 50_000,
    });
    expect(loadConfig({ CYRNEL_MCP_WAIT_MS: "0" }).mcpWaitMs).toBe(0);
  });
});
