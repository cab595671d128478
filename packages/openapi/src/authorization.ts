import type { AuthorizationCodeFlow } from "@cyrnel/sdk";
import type { ServerDomain } from "./config.js";
import { entriesOf, type JsonRecord, own, ownRecord, ownString } from "./records.js";

/**
 * The OAuth2 authorization-code flow the document declares, for the
 * definition's `authorization` (a host offers to connect the service to a
 * user's account with it): the first security scheme, in document order,
 * with one — OpenAPI 3's `flows.authorizationCode`, Swagger 2's
 * `flow: accessCode` (converted to that shape by `operations.ts`).
 *
 * The SDK wants absolute URLs; the document may give them relative to its
 * server (OpenAPI 3 allows it), so they are resolved against the first
 * server filled with its variables' defaults, as a client-credentials
 * `tokenUrl` is at call time. When they cannot be made absolute http(s) URLs
 * (a relative server, or none) the flow is left out rather than guessed.
 */
export function authorizationFlow(
  schemes: Record<string, JsonRecord>,
  server: ServerDomain | null,
): AuthorizationCodeFlow | undefined {
  for (const scheme of Object.values(schemes)) {
    if (own(scheme, "type") !== "oauth2") continue;
    const flow = ownRecord(ownRecord(scheme, "flows"), "authorizationCode");
    if (flow === undefined) continue;
    const base = server?.defaultBaseUrl ?? undefined;
    const authorizationUrl = absoluteUrl(ownString(flow, "authorizationUrl"), base);
    const tokenUrl = absoluteUrl(ownString(flow, "tokenUrl"), base);
    if (authorizationUrl === undefined || tokenUrl === undefined) return undefined;
    return { authorizationUrl, tokenUrl, scopes: entriesOf(own(flow, "scopes")).map(([scope]) => scope) };
  }
  return undefined;
}

function absoluteUrl(url: string | undefined, base: string | undefined): string | undefined {
  if (url === undefined || url.trim() === "") return undefined;
  try {
    const resolved = base === undefined ? new URL(url) : new URL(url, `${base}/`);
    return resolved.protocol === "https:" || resolved.protocol === "http:" ? resolved.href : undefined;
  } catch {
    return undefined;
  }
}
