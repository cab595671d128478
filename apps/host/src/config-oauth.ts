/**
 * The environment variables of signing in with OAuth 2.1 (the host as a
 * resource server: http/oauth-resource.ts, domain/governance/oauth-tokens.ts),
 * parsed like the rest of the host's configuration and merged into
 * `HostConfig` (its `oauth`). A leaf, so config.ts stays one.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `CYRNEL_OAUTH_ISSUER` | none | the authorization server (OpenID provider) whose access tokens the host accepts; turns OAuth on beside API keys |
 * | `CYRNEL_ADVERTISE_URL` | none | required with the issuer: the resource the tokens are for (and what `/.well-known/oauth-protected-resource` names) |
 * | `CYRNEL_OAUTH_AUDIENCE` | the resource, or it with `/mcp` | the `aud` a token must carry |
 * | `CYRNEL_OAUTH_SCOPES_CLAIM` | `scope` | the claim holding the scopes: a space-separated string or an array (as `scp`) |
 */
import { ConfigError } from "./config-error.js";

export interface OAuthConfig {
  /** The issuer exactly as tokens carry it in `iss` (no trailing slash added or removed). */
  issuer: string;
  /** `CYRNEL_ADVERTISE_URL` without a trailing slash: the resource identifier (RFC 8707, RFC 9728). */
  resource: string;
  /** Audiences a token may carry (one of them). */
  audiences: string[];
  scopesClaim: string;
}

type Env = Record<string, string | undefined>;

/** The OAuth settings, or null when `CYRNEL_OAUTH_ISSUER` is not set (only API keys are accepted). */
export function loadOAuthConfig(env: Env): OAuthConfig | null {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const issuer = read("CYRNEL_OAUTH_ISSUER");
  if (issuer === undefined) {
    for (const name of ["CYRNEL_OAUTH_AUDIENCE", "CYRNEL_OAUTH_SCOPES_CLAIM"]) {
      if (read(name) !== undefined) throw new ConfigError(name, "applies only with CYRNEL_OAUTH_ISSUER set");
    }
    return null;
  }
  httpUrl("CYRNEL_OAUTH_ISSUER", issuer);
  const advertise = read("CYRNEL_ADVERTISE_URL");
  if (advertise === undefined) {
    throw new ConfigError(
      "CYRNEL_OAUTH_ISSUER",
      "is set but CYRNEL_ADVERTISE_URL is not: set CYRNEL_ADVERTISE_URL to the URL clients reach this host at " +
        "(e.g. https://cyrnel.example.com); it is the resource the issuer's tokens are for",
    );
  }
  const resource = httpUrl("CYRNEL_ADVERTISE_URL", advertise).replace(/\/+$/, "");
  const audience = read("CYRNEL_OAUTH_AUDIENCE");
  const scopesClaim = read("CYRNEL_OAUTH_SCOPES_CLAIM") ?? "scope";
  if (!/^[\w.:-]+$/.test(scopesClaim)) {
    throw new ConfigError(
      "CYRNEL_OAUTH_SCOPES_CLAIM",
      `must be a claim name (e.g. scope or scp), got "${scopesClaim}"`,
    );
  }
  return {
    issuer,
    resource,
    audiences: audience === undefined ? [resource, `${resource}/mcp`] : [audience],
    scopesClaim,
  };
}

function httpUrl(variable: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, `is not a URL, got "${value}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError(variable, `must be an http:// or https:// URL, got "${value}"`);
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigError(variable, `must have no query or fragment, got "${value}"`);
  }
  return value;
}
