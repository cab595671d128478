/**
 * A body read whole up to `limit` bytes: `undefined` once it passes the limit
 * (the stream is then cancelled, so the rest is never read). For bodies of
 * unknown length: a chunked request, a provider's token response.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer | undefined> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
