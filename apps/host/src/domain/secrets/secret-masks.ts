/**
 * Masking a service's secret values out of what leaves the gate: adapter
 * errors going back to code, the parameters an operator is asked to approve,
 * and the parameter previews of call records. A secret travels in many forms
 * (raw, percent-, form- or JSON-encoded, basic's base64); `secretForms` from
 * the SDK lists them, and every one is replaced with `[redacted]`.
 *
 * The forms of a service's secrets are read (decrypted) once per change of
 * the secrets, not once per call: tool calls come in loops.
 */
import { secretForms } from "@cyrnel/sdk";
import { cutText } from "../../cut-text.js";
import type { SecretStore } from "./secret-store.js";

const REDACTED = "[redacted]";
/** Room for `cutText`'s marker (`… [cut: N more characters]`) when a preview is shrunk to fit. */
const MARKER_ROOM_CHARS = 64;

export class SecretMasks {
  private readonly forms = new Map<string, readonly string[]>();
  private formsRevision = -1;

  /**
   * `textsOf`: what to mask of a service's secret values, when that is more than the values themselves (a secret
   * header's credentials without its scheme, `domain/services/secret-headers.ts`).
   */
  constructor(
    private readonly secrets: Pick<SecretStore, "read" | "revision">,
    private readonly textsOf: (values: Record<string, unknown>) => unknown = (values) => values,
  ) {}

  /** Every form of every secret value of the service, longest first; none when they cannot be read. */
  async of(serviceId: string): Promise<readonly string[]> {
    const revision = this.secrets.revision;
    if (revision !== this.formsRevision) {
      this.forms.clear();
      this.formsRevision = revision;
    }
    let needles = this.forms.get(serviceId);
    if (needles === undefined) {
      try {
        needles = secretForms(this.textsOf(await this.secrets.read({ type: "service", id: serviceId })));
      } catch {
        // Secrets that cannot be decrypted cannot have reached an adapter either.
        needles = [];
      }
      // A write while reading: the next call reads again.
      if (this.secrets.revision === revision && this.formsRevision === revision) this.forms.set(serviceId, needles);
    }
    return needles;
  }
}

export function mask(text: string, needles: readonly string[]): string {
  return needles.reduce((out, needle) => (out.includes(needle) ? out.split(needle).join(REDACTED) : out), text);
}

/**
 * `text` masked and cut to `maxChars`. Only a prefix long enough to hold any
 * secret that starts inside the kept part is masked: no half secret is left
 * at the cut, and the megabytes past it are never scanned.
 */
export function maskedPrefix(text: string, maxChars: number, needles: readonly string[]): string {
  const kept = text.slice(0, maxChars + (needles[0]?.length ?? 0));
  const masked = mask(kept, needles);
  // The tail that was never scanned counts as left out too.
  return cutText(masked, maxChars, masked.length + (text.length - kept.length));
}

/** Every string (keys included) of a JSON value, masked. */
export function maskDeep(value: unknown, needles: readonly string[]): unknown {
  if (needles.length === 0) return value;
  if (typeof value === "string") return mask(value, needles);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, needles));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, mask(key, needles), {
        value: maskDeep(item, needles),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** A JSON value bounded for where it goes: the value with its secrets masked, and that value's JSON text. */
export interface BoundedJson {
  value: unknown;
  json: string;
}

/**
 * `value` with its secrets masked, when its JSON text fits in `maxChars`;
 * else a string holding the start of that text (masked), ending with
 * `… [cut: N more characters]`, chosen so that the string's own JSON fits
 * in `maxChars`. Something that is not JSON-serialisable says so.
 */
export function boundedJson(value: unknown, maxChars: number, needles: readonly string[]): BoundedJson {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    const note = "[not JSON-serialisable]";
    return { value: note, json: JSON.stringify(note) };
  }
  if (text.length <= maxChars) {
    // The value itself: it is JSON already (parsed from a request or from the sandbox), and the text says what it is.
    if (!needles.some((needle) => text.includes(needle))) return { value, json: text };
    const masked = maskDeep(JSON.parse(text), needles);
    const json = JSON.stringify(masked);
    if (json.length <= maxChars) return { value: masked, json };
  }
  // Escaping (quotes and backslashes of the JSON text) makes the string's JSON longer than the text, up to several
  // times: shrink in proportion, with room for the marker, until it fits.
  let keep = maxChars;
  for (;;) {
    const cut = maskedPrefix(text, keep, needles);
    const json = JSON.stringify(cut);
    if (json.length <= maxChars || keep === 0) return { value: cut, json };
    keep = Math.max(0, Math.min(keep - 1, Math.floor((keep * maxChars) / json.length) - MARKER_ROOM_CHARS));
  }
}
