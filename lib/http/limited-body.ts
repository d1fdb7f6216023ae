import { PayloadTooLargeError } from '../errors';

/**
 * Reads a web ReadableStream body, refusing it by its Content-Length or as soon as what arrived passes maxBytes:
 * never more than maxBytes (plus the chunk that crossed it) is held. Call it only once the caller's credentials
 * have been checked, so an anonymous sender cannot make the server read at all.
 */
export async function readBodyLimited(stream: ReadableStream<Uint8Array> | null, declaredLength: string | null, maxBytes: number): Promise<Buffer> {
  if (Number(declaredLength ?? 0) > maxBytes) {
    await stream?.cancel().catch(() => {});
    throw new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
  }
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let length = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, length);
}
