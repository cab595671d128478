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
