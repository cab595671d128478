/**
 * Secret names the host itself interprets, for every service whatever its
 * adapter: `header:<Header-Name>` and `query:<param>`. An API whose
 * description declares no security scheme (GitHub's REST description) has
 * nowhere else to keep its token but plain config; set as
 * `{"header:Authorization": "token ghp_…"}` it is sealed and write-only like
 * any secret, and the adapter sends it on every request
 * (`ServiceState.secretHeaders` / `secretQuery` of the SDK).
 *
 * Such names are taken out before the rest is validated against the
 * adapter's secrets schema, so a schema with `additionalProperties: false`
 * accepts them, and at hydration they go to their own fields of the state,
 * never to `state.secrets`. One table lists the prefixes, so another kind
 * can be added in one place. Prefixes are matched as written (lower case).
 */
import type { ServiceState } from "@cyrnel/sdk";
import type { ValidationIssue } from "../../lib/json-schema.js";

type Values = Record<string, unknown>;
type StateField = keyof Pick<ServiceState, "secretHeaders" | "secretQuery">;

interface ReservedPrefix {
  prefix: string;
  /** What one such secret is, in messages. */
  what: string;
  /** The field of the hydration state its values go to. */
  field: StateField;
  /** Why the name after the prefix cannot be used, or null. */
  nameProblem(name: string): string | null;
  /** Names that are one and the same on the wire (header names are case-insensitive). */
  key(name: string): string;
}

/** RFC 9110 §5.6.2 `token`: what a field name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Headers that frame the message or the connection (RFC 9110 §7.6.1's
 * hop-by-hop ones among them): the HTTP client computes them for the bytes
 * it sends, and a wrong one hangs the call or cuts the body.
 */
const FRAMING_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);

export const RESERVED_PREFIXES: readonly ReservedPrefix[] = [
  {
    prefix: "header:",
    what: "header",
    field: "secretHeaders",
    nameProblem: (name) => {
      if (!TOKEN.test(name))
        return `"${name}" is not a valid header name (RFC 9110: letters, digits and !#$%&'*+-.^_\`|~)`;
      if (FRAMING_HEADERS.has(name.toLowerCase())) {
        return `"${name}" frames the message or the connection: the HTTP client sets it for each request`;
      }
      return null;
    },
    key: (name) => name.toLowerCase(),
  },
  {
    prefix: "query:",
    what: "query parameter",
    field: "secretQuery",
    nameProblem: () => null,
    key: (name) => name,
  },
];

/** Whether `value` holds a control character other than tab: a header cannot carry one (CR and LF split the message). */
function hasControl(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

export interface ReservedSecrets {
  /** The other secrets: what the adapter's secrets schema validates and `state.secrets` holds. */
  others: Values;
  /** The reserved ones, by field, each by the name after its prefix (only fields that have some). */
  state: Pick<ServiceState, StateField>;
  /** What is wrong with the reserved ones, each at the secret's JSON pointer. */
  issues: ValidationIssue[];
}

/** Splits a service's secrets into the reserved ones (checked) and the others. */
export function readReservedSecrets(values: Values): ReservedSecrets {
  const others: Values = {};
  const state: Pick<ServiceState, StateField> = {};
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, string>();
  for (const [secret, value] of Object.entries(values)) {
    const kind = RESERVED_PREFIXES.find(({ prefix }) => secret.startsWith(prefix));
    if (kind === undefined) {
      Object.defineProperty(others, secret, { value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const path = `/${secret.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    const problem = (message: string) => issues.push({ path, message: `secret "${secret}": ${message}` });
    const name = secret.slice(kind.prefix.length);
    if (name === "") {
      problem(`the ${kind.what} name is missing after "${kind.prefix}"`);
      continue;
    }
    const nameProblem = kind.nameProblem(name);
    if (nameProblem !== null) {
      problem(nameProblem);
      continue;
    }
    if (typeof value !== "string") {
      problem(`the value of a secret ${kind.what} must be a string`);
      continue;
    }
    if (hasControl(value)) {
      problem(`the value must not contain line breaks or other control characters`);
      continue;
    }
    const key = `${kind.prefix}${kind.key(name)}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problem(`it names the same ${kind.what} as "${earlier}"`);
      continue;
    }
    seen.set(key, secret);
    state[kind.field] ??= {};
    Object.defineProperty(state[kind.field], name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { others, state, issues };
}

/** `<scheme> <credentials>` (RFC 9110 §11.4), e.g. `token ghp_…` or `Bearer …`: the credentials alone. */
const CREDENTIALS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ +(\S+)$/;

/**
 * The secret values to mask out of what leaves the gate: all of them, and
 * for a secret header written as `<scheme> <credentials>` its credentials
 * alone as well, since an upstream may quote the token without its scheme.
 */
export function valuesToMask(values: Values): unknown[] {
  const out: unknown[] = [values];
  for (const [secret, value] of Object.entries(values)) {
    if (!secret.startsWith("header:") || typeof value !== "string") continue;
    const credentials = CREDENTIALS.exec(value)?.[1];
    if (credentials !== undefined) out.push(credentials);
  }
  return out;
}
