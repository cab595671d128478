/**
 * The two requests a connection makes to a provider's token endpoint
 * (RFC 6749 §4.1.3 and §6: the code for tokens, a refresh token for new
 * ones) and the revocation request (RFC 7009). The client authenticates
 * with HTTP basic when it has a secret (`client_secret_basic`, what
 * providers must support) and sends only its id otherwise (a public client,
 * which PKCE protects). Responses are read up to a bound; a provider's error
 * message is passed on, never the tokens.
 */
import { CyrnelError, messageOf } from "../../errors.js";
import { readCapped } from "../../lib/read-capped.js";

export interface OAuthClient {
  clientId: string;
  clientSecret: string | null;
  timeoutMs: number;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** Seconds the access token lives (`expires_in`), or null when the provider did not say. */
  expiresIn: number | null;
  /** The scopes granted (`scope`), or null when the provider did not say (the requested ones, RFC 6749 §5.1). */
  scopes: string[] | null;
}

/** A token response is a few kilobytes; anything this large is not one. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** `application/x-www-form-urlencoded` component (RFC 6749 appendix B): what basic authentication encodes too. */
const formEncode = (text: string) => encodeURIComponent(text).replaceAll("%20", "+");

/** The provider refused the grant itself (`invalid_grant`): the account must be connected again. */
export class GrantRefused extends Error {}

export async function requestTokens(
  tokenUrl: string,
  client: OAuthClient,
  grant: Record<string, string>,
): Promise<TokenSet> {
  const body = new URLSearchParams(grant);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (client.clientSecret === null) body.set("client_id", client.clientId);
  else headers.authorization = basic(client);
  const label = `the token endpoint ${tokenUrl}`;
  const { status, text } = await post(tokenUrl, headers, body, client.timeoutMs, label);
  const parsed = parseJson(text);
  if (status < 200 || status > 299) {
    const error = typeof parsed?.error === "string" ? parsed.error : `HTTP ${status}`;
    const description = typeof parsed?.error_description === "string" ? `: ${parsed.error_description}` : "";
    const message = `${label} refused the request (${error}${description})`;
    if (error === "invalid_grant") throw new GrantRefused(message);
    throw new CyrnelError("upstream_error", message);
  }
  const accessToken = parsed?.access_token;
  if (typeof accessToken !== "string" || accessToken === "") {
    throw new CyrnelError("upstream_error", `${label} answered without an access_token`);
  }
  const tokenType = parsed?.token_type;
  if (typeof tokenType === "string" && tokenType.toLowerCase() !== "bearer") {
    throw new CyrnelError("upstream_error", `${label} issued a "${tokenType}" token; only bearer tokens are supported`);
  }
  const expiresIn = Number(parsed?.expires_in);
  return {
    accessToken,
    refreshToken:
      typeof parsed?.refresh_token === "string" && parsed.refresh_token !== "" ? parsed.refresh_token : null,
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null,
    scopes: typeof parsed?.scope === "string" ? parsed.scope.split(" ").filter((scope) => scope !== "") : null,
  };
}

/** RFC 7009: asks the provider to revoke `token`; true when it said it did (200). */
export async function revokeToken(
  revocationUrl: string,
  client: OAuthClient,
  token: string,
  hint: "refresh_token" | "access_token",
): Promise<boolean> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (client.clientSecret === null) body.set("client_id", client.clientId);
  else headers.authorization = basic(client);
  const { status } = await post(
    revocationUrl,
    headers,
    body,
    client.timeoutMs,
    `the revocation endpoint ${revocationUrl}`,
  );
  return status === 200;
}

function basic(client: OAuthClient): string {
  const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret ?? "")}`;
  return `Basic ${Buffer.from(pair).toString("base64")}`;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: URLSearchParams,
  timeoutMs: number,
  label: string,
): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new CyrnelError("upstream_error", `${label} could not be reached: ${messageOf(error)}`);
  }
  return { status: response.status, text: await readResponse(response, label) };
}

async function readResponse(response: Response, label: string): Promise<string> {
  const bytes = await readCapped(response.body, MAX_RESPONSE_BYTES);
  if (bytes === undefined)
    throw new CyrnelError("upstream_error", `${label} answered more than ${MAX_RESPONSE_BYTES} bytes`);
  return bytes.toString("utf8");
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
