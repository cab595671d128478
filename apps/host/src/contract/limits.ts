/**
 * The API's limits, in one place: the contract declares them in its
 * schemas (and so in /openapi.json), and the code that enforces them
 * (http/pagination.ts, domain/governance/policy.ts) imports them from here.
 */

/** Items on a list page when `limit` is not given, and the most a page may ask for. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** The largest id (and offset) a row or a cursor can have: PostgreSQL's `integer`. */
export const MAX_ROW_ID = 2_147_483_647;

/** Rules of one policy: far above what an operator writes by hand, far below what would slow every call down. */
export const MAX_RULES = 200;
export const MAX_GLOB_CHARS = 200;
/** What a policy's glob may contain: the characters of tool ids, and the wildcards. */
export const GLOB_PATTERN = "^[A-Za-z0-9_$*?]+$";
