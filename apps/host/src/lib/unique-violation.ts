/**
 * Whether a database error is a uniqueness clash (→ 409): SQLite's
 * constraint codes, or PostgreSQL's SQLSTATE 23505 (`unique_violation`).
 * drizzle wraps the driver's error on PostgreSQL (its `cause`).
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505") return true;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== error && isUniqueViolation(cause);
}
