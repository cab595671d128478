/**
 * Case folding for substring filters (`?query=` on services and tools), in
 * SQL and in memory alike: Unicode-aware, not only ASCII as SQLite's `LIKE`
 * or a C-locale PostgreSQL's `lower()` would be. SQLite calls this function
 * (registered as `casefold` in db/client.ts); PostgreSQL stores its result
 * beside the text it folds (db/schema-pg.ts), so both compare the same strings.
 */
export const casefold = (text: string) => text.normalize("NFC").toLowerCase();
