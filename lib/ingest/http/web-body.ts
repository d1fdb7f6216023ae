import { PayloadTooLargeError } from '../../errors';

/** Reads a web ReadableStream body, refusing it as soon as it passes maxBytes. */
export async function readWebBodyLimited(stream: ReadableStream<Uint8Array> | null, declaredLength: string | null, maxBytes = 1024 * 1024): Promise<Buffer> {
  if (Number(declaredLength ?? 0) > maxBytes) throw new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
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
