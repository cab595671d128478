import { createHash } from "node:crypto";

/**
 * Words that cannot be used as service or tool ids: ECMAScript reserved
 * words (including strict-mode and module-only ones) and literals, plus the
 * property names that would collide with `Object.prototype` machinery when
 * ids are used as keys (`__proto__`, `constructor`, `prototype`).
 */
export const RESERVED_IDENTIFIERS: ReadonlySet<string> = new Set([
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "__proto__",
  "constructor",
  "prototype",
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The longest service or tool id. Ids are read by people and by models, go
 * into every list, search index, policy match and type declaration, and a
 * document can name an operation with 180 KB of text: adapters shorten longer
 * ones (the bundled openapi adapter keeps the start and adds a digest).
 */
export const MAX_IDENTIFIER_CHARS = 128;

/**
 * Whether `id` can name a service or tool: an ASCII TypeScript identifier
 * (`^[A-Za-z_$][A-Za-z0-9_$]*$`) of at most {@link MAX_IDENTIFIER_CHARS}
 * characters that is not in {@link RESERVED_IDENTIFIERS}. The host applies
 * this to every service and tool id before persisting.
 */
export function isValidIdentifier(id: unknown): id is string {
  return (
    typeof id === "string" && id.length <= MAX_IDENTIFIER_CHARS && IDENTIFIER.test(id) && !RESERVED_IDENTIFIERS.has(id)
  );
}

/**
 * The ASCII letter and digit words of a name, accents stripped first: what
 * an adapter camel-cases into an id (`repos/get-content` → `repos`, `get`,
 * `content`).
 */
export function identifierWords(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
}

/** Words joined in camelCase: the first keeps its case, later ones get an upper-case first letter. */
export function camelCaseWords(words: readonly string[]): string {
  return words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("");
}

/**
 * `candidate` (letters, digits, `_`, `$`) made a valid id of at most
 * `maxChars`: a leading digit gets a `_` prefix; a longer one keeps its
 * start and ends with `_` and 8 hex digits of its SHA-256, so long ids stay
 * distinct; a reserved word gets a `_` suffix. Adapters leave room under
 * {@link MAX_IDENTIFIER_CHARS} for a duplicate's suffix (`_2`) with a
 * smaller `maxChars`.
 */
export function legaliseIdentifier(candidate: string, maxChars = MAX_IDENTIFIER_CHARS): string {
  let id = /^[A-Za-z_$]/.test(candidate) ? candidate : `_${candidate}`;
  if (id.length > maxChars) {
    const digest = createHash("sha256").update(id).digest("hex").slice(0, 8);
    id = `${id.slice(0, maxChars - 9)}_${digest}`;
  }
  while (!isValidIdentifier(id)) id = `${(id as string).slice(0, MAX_IDENTIFIER_CHARS - 1)}_`;
  return id;
}
