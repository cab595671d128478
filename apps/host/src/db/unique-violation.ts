/**
 * Whether a database error is a uniqueness clash (→ 409): SQLite's
 * constraint codes, or PostgreSQL's SQLSTATE 23505 (`unique_violation`).
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}
