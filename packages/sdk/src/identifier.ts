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
 * Whether `id` can name a service or tool: an ASCII TypeScript identifier
 * (`^[A-Za-z_$][A-Za-z0-9_$]*$`) that is not in {@link RESERVED_IDENTIFIERS}.
 * The host applies this to every service and tool id before persisting.
 */
export function isValidIdentifier(id: unknown): id is string {
  return typeof id === "string" && IDENTIFIER.test(id) && !RESERVED_IDENTIFIERS.has(id);
}
