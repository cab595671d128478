/**
 * The typed API client: openapi-fetch over the types generated from the host's /openapi.json (api-schema.ts), so a
 * path, parameter or body the host does not have is a compile error. Every call carries the session's key as the
 * bearer header; a 401 signs the operator out (the key was revoked, expired or never right).
 */
import createClient, { type Middleware } from "openapi-fetch";
import { readKey, storeKey } from "../auth/session-key";
import { ApiError, toApiError } from "./api-error";
import type { paths } from "./api-schema";

export const SIGNED_OUT_NOTICE = "cyrnel.signedOutNotice";

const auth: Middleware = {
  onRequest({ request }) {
    const key = readKey();
    if (key !== null) request.headers.set("authorization", `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && readKey() !== null) {
      sessionStorage.setItem(
        SIGNED_OUT_NOTICE,
        "The host no longer accepts your key (revoked or expired). Sign in again.",
      );
      storeKey(null);
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a call, or an ApiError with the host's code and message. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(0, "network_error", `the host could not be reached: ${(error as Error).message}`);
  }
  if (result.response.ok) return result.data as T;
  throw toApiError(result.response.status, result.error, `${result.response.status} ${result.response.statusText}`);
}

/** Headers for the few requests made with plain fetch (streams): the same bearer key. */
export function authHeaders(): Record<string, string> {
  const key = readKey();
  return key === null ? {} : { authorization: `Bearer ${key}` };
}
