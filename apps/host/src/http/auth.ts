/** Bearer authentication with a constant-time comparison (digests, so key length does not leak either). */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { CyrnelError } from "../errors.js";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

export function bearerAuth(
  apiKey: string | null,
  isPublic: (method: string, path: string) => boolean,
): MiddlewareHandler {
  if (apiKey === null) return async (_c, next) => next();
  const expected = digest(apiKey);
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new CyrnelError(
        "unauthorized",
        match ? "invalid API key" : "missing Authorization: Bearer <CYRNEL_API_KEY>",
      );
    }
    return next();
  };
}
