/** Opaque list cursors: base64url of a JSON sort key, checked on the way back in. */
import { DEFAULT_LIMIT, MAX_ROW_ID } from "../contract/limits.js";
import { CyrnelError } from "../errors.js";

export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

export function decodeCursor<T>(cursor: string | undefined, guard: (value: unknown) => value is T): T | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (guard(value)) return value;
  } catch {
    // fall through to the error below
  }
  throw new CyrnelError("bad_request", `invalid cursor "${cursor}"; pass back a nextCursor from a previous page`);
}

/** Takes `limit + 1` rows and turns them into a page with the next cursor. */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  item: (row: Row) => Item,
  cursorOf: (row: Row) => unknown,
): { items: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(item),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}

/**
 * One page of a list ordered by a numeric id, newest first: `read` gets the page size and the id to continue
 * below (from `cursor`) and answers up to `limit + 1` rows.
 */
export async function pageById<Row extends { id: number }, Item>(
  query: { limit?: number; cursor?: string },
  read: (limit: number, before: number | undefined) => Promise<Row[]>,
  item: (row: Row) => Item,
): Promise<{ items: Item[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  return toPage(await read(limit, decodeCursor(query.cursor, isNumber)), limit, item, (row) => row.id);
}

/**
 * What a cursor may carry, checked like any other input: the numbers are ids and offsets, which PostgreSQL keeps as
 * `integer` (a larger one would fail the query, not match nothing), and text never holds a NUL (PostgreSQL refuses
 * it in any string).
 */
export const isString = (value: unknown): value is string => typeof value === "string" && !value.includes("\u0000");
export const isNumber = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= MAX_ROW_ID;
export const isStringPair = (value: unknown): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && isString(value[0]) && isNumber(value[1]);
export const isTwoStrings = (value: unknown): value is [string, string] =>
  Array.isArray(value) && value.length === 2 && isString(value[0]) && isString(value[1]);
/** The cursor of a page of ranked results: how many results came before it (ranked lists have no key to resume after). */
export const isRankCursor = (value: unknown): value is { rank: number } =>
  typeof value === "object" &&
  value !== null &&
  isNumber((value as { rank?: unknown }).rank) &&
  (value as { rank: number }).rank >= 0;
