import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import type { BodyBytes } from "./body.js";

/**
 * One HTTP request over node:http(s), answered as a WHATWG `Response`, for
 * the one thing `fetch` refuses: a body on GET or HEAD. HTTP allows it and
 * some APIs require it (AWS's JSON list operations such as SES v2
 * `ListContacts`), so such a call must not fail in the client. Redirects
 * are not followed (the caller follows them by hand, as with fetch's
 * `redirect: "manual"`); no `Accept-Encoding` is added, so the answer
 * comes uncompressed.
 */

export interface NodeRequestInit {
  method: string;
  headers: Headers;
  body: BodyBytes;
  signal: AbortSignal;
}

/** The body's bytes and, for a FormData body, its multipart content type (with the boundary). */
async function serialise(body: BodyBytes): Promise<{ bytes: Uint8Array; contentType: string | null }> {
  const carrier = new Response(body);
  const contentType = body instanceof FormData ? carrier.headers.get("content-type") : null;
  return { bytes: new Uint8Array(await carrier.arrayBuffer()), contentType };
}

function toResponse(incoming: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
    headers.append(incoming.rawHeaders[index]!, incoming.rawHeaders[index + 1]!);
  }
  const status = incoming.statusCode ?? 502;
  const empty = method === "HEAD" || [204, 205, 304].includes(status);
  if (empty) incoming.resume();
  const body = empty ? null : (Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>);
  // `Response` only takes final statuses in 200–599; anything else is a broken upstream.
  return new Response(body, {
    status: status >= 200 && status <= 599 ? status : 502,
    statusText: incoming.statusMessage ?? "",
    headers,
  });
}

export async function nodeRequest(url: string, init: NodeRequestInit): Promise<Response> {
  const { bytes, contentType } = await serialise(init.body);
  const headers: Record<string, string> = {};
  init.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (contentType !== null) headers["content-type"] = contentType;
  headers["content-length"] = String(bytes.byteLength);
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = send(target, { method: init.method, headers, signal: init.signal }, (incoming) => {
      resolve(toResponse(incoming, init.method));
    });
    outgoing.on("error", reject);
    outgoing.end(bytes);
  });
}
