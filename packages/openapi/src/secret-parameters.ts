import type { Credentials, SchemeDomain } from "./auth.js";
import type { ParameterBinding } from "./domain.js";
import type { ParameterLocation, SecurityAlternative } from "./operations.js";
import { own } from "./records.js";

/**
 * Parameters the service's secrets already provide. Some documents declare
 * their credential as an ordinary parameter on every operation besides (or
 * instead of) a security scheme: Slack's `token` header or query parameter,
 * required, next to its `slackAuth` OAuth2 scheme; petstore's `api_key`
 * header next to the `api_key` apiKey scheme of the same name. A caller
 * would have to pass the secret by hand, which code in a sandbox must never
 * see. Such a parameter is optional in the tool's input schema and, when the
 * caller leaves it out, sent with the secret's value, like credentials.
 *
 * At generation ({@link coveringScheme}) a header, query or cookie parameter
 * is covered by, in this order:
 *
 * 1. an `apiKey` scheme sent in the same place under the same name;
 * 2. a scheme named like the parameter (the secret has the parameter's name);
 * 3. when its name is a credential's (`token`, `access_token`, `api_key`,
 *    `api_token`, `auth_token`, any case, `-` or `_`), the first scheme of the
 *    operation's security that carries a token (apiKey, bearer, OAuth2, OpenID
 *    Connect): that is Slack's case, whose `token` no scheme mentions.
 *
 * The same rules (2 and 3) apply to the fields of a form body
 * (urlencoded or multipart) whose schema lists them: Slack sends `token` as
 * a required form field on some methods. HTTP basic never covers a
 * parameter (there is no single value to send).
 */

/** Schemes whose secret is (or yields) one token string. */
const TOKEN_SCHEMES = new Set<SchemeDomain["type"]>(["apiKey", "bearer", "oauth2", "openIdConnect"]);

const CREDENTIAL_NAMES = new Set(["token", "accesstoken", "apikey", "apitoken", "authtoken"]);

const credentialName = (name: string) => CREDENTIAL_NAMES.has(name.toLowerCase().replace(/[-_]/g, ""));

const sameName = (location: ParameterLocation | "body", a: string, b: string) =>
  location === "header" ? a.toLowerCase() === b.toLowerCase() : a === b;

/** The scheme whose secret is this parameter's value, or undefined. */
export function coveringScheme(
  parameter: { name: string; in: ParameterLocation | "body" },
  security: readonly SecurityAlternative[],
  schemes: Record<string, SchemeDomain>,
): string | undefined {
  if (parameter.in === "path") return undefined;
  const entries = Object.entries(schemes);
  const sameKey = entries.find(
    ([, scheme]) =>
      scheme.type === "apiKey" && scheme.in === parameter.in && sameName(parameter.in, scheme.name, parameter.name),
  );
  if (sameKey) return sameKey[0];
  const named = entries.find(([name, scheme]) => name === parameter.name && TOKEN_SCHEMES.has(scheme.type));
  if (named) return named[0];
  if (!credentialName(parameter.name)) return undefined;
  for (const alternative of security) {
    for (const { scheme } of alternative) {
      const domain = Object.hasOwn(schemes, scheme) ? schemes[scheme] : undefined;
      if (domain && TOKEN_SCHEMES.has(domain.type)) return scheme;
    }
  }
  return undefined;
}

/** What a covered parameter's description says, so docs and types tell the caller it may be left out. */
export function coveredDescription(description: string | undefined, scheme: string): string {
  const note = `Optional: filled from the service's secret "${scheme}" when omitted.`;
  return description ? `${description} ${note}` : note;
}

/**
 * Reconciles covered parameters with the call's credentials: a covered
 * parameter the caller left out is added with its scheme's token (`tokenOf`,
 * undefined when the secret is not set: then it is simply not sent), unless
 * the credentials already send that name in that place; a value the caller
 * gave wins over the credential of the same place and name, which is
 * dropped. The values added are secrets: listed for scrubbing, and headers
 * among the credential headers (not forwarded across origins).
 */
export function withSecretParameters(
  credentials: Credentials,
  bindings: readonly ParameterBinding[],
  parameters: Record<string, unknown>,
  tokenOf: (scheme: string) => string | undefined,
): Credentials {
  const out: Credentials = {
    headers: [...credentials.headers],
    query: [...credentials.query],
    cookies: [...credentials.cookies],
    secrets: [...credentials.secrets],
  };
  const listOf = (location: ParameterLocation) =>
    location === "header" ? out.headers : location === "query" ? out.query : out.cookies;
  for (const binding of bindings) {
    if (binding.secret === undefined || binding.in === "path") continue;
    const list = listOf(binding.in);
    const given = own(parameters, binding.key);
    const matches = (entry: [string, string]) => sameName(binding.in, entry[0], binding.name);
    if (given !== undefined && given !== null) {
      for (let index = list.length - 1; index >= 0; index--) if (matches(list[index]!)) list.splice(index, 1);
      continue;
    }
    if (list.some(matches)) continue;
    const token = tokenOf(binding.secret);
    if (token === undefined) continue;
    list.push([binding.name, token]);
    out.secrets.push(token);
  }
  return out;
}

/**
 * A form body's covered fields filled in where the caller left them out (a
 * body the caller did not give at all starts empty); `undefined` when
 * nothing is to be sent: no covered field, or no token for any. A body
 * given as encoded text is the caller's own and is left as it is.
 */
export function withSecretFields(
  fields: Record<string, string> | undefined,
  body: unknown,
  tokenOf: (scheme: string) => string | undefined,
): { body: Record<string, unknown>; secrets: string[] } | undefined {
  if (
    fields === undefined ||
    (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body)))
  )
    return undefined;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown> | undefined) };
  const secrets: string[] = [];
  for (const [field, scheme] of Object.entries(fields)) {
    if (out[field] !== undefined && out[field] !== null) continue;
    const token = tokenOf(scheme);
    if (token === undefined) continue;
    Object.defineProperty(out, field, { value: token, enumerable: true, writable: true, configurable: true });
    secrets.push(token);
  }
  return secrets.length > 0 ? { body: out, secrets } : undefined;
}
