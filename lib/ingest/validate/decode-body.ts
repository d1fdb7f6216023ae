import { gunzipSync } from 'node:zlib';
import { AppError, InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors';

export interface BodyLimits {
  maxCompressedBytes: number;
  maxDecompressedBytes: number;
}

export function checkContentType(contentType: string | null | undefined): void {
  if (!contentType) return;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new UnsupportedMediaTypeError(`content-type ${mediaType} is not supported; send application/json`);
  }
}

// Bounded: the size a gzip trailer claims is the sender's word, and this much is allocated before inflating.
const MAX_OUTPUT_CHUNK_BYTES = 256 * 1024;
const MIN_GZIP_BYTES = 18;

/**
 * zlib inflates into chunks of 16 KB by default, then concatenates them. A gzip member ends with its uncompressed
 * size (mod 2^32): with that as the chunk size a report is inflated into one right-sized buffer, not chunks and their
 * copy (garbage that drove many young-generation GCs). A wrong claim only costs extra chunks; maxOutputLength still
 * bounds the result.
 */
function outputChunkBytes(body: Buffer): number {
  const claimed = body.length >= MIN_GZIP_BYTES ? body.readUInt32LE(body.length - 4) : 0;
  return Math.min(Math.max(claimed, 1024), MAX_OUTPUT_CHUNK_BYTES);
}

/**
 * The body as it was before Content-Encoding. zlib stops at maxOutputLength, so a gzip bomb costs at most that
 * much memory before it is refused. (Synchronous gunzip is faster than the async one for 1–2 KB bodies.)
 */
export function decodeBody(body: Buffer, contentEncoding: string | null | undefined, limits: BodyLimits): Buffer {
  if (body.length > limits.maxCompressedBytes) {
    throw new PayloadTooLargeError(`request body exceeds ${limits.maxCompressedBytes} bytes`);
  }
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new UnsupportedMediaTypeError(`content-encoding ${encoding} is not supported; use gzip or identity`);
  }
  try {
    return gunzipSync(body, { maxOutputLength: limits.maxDecompressedBytes, chunkSize: outputChunkBytes(body) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PayloadTooLargeError(`decompressed body exceeds ${limits.maxDecompressedBytes} bytes`);
    }
    throw new AppError(400, 'invalid_body', 'body is not valid gzip');
  }
}

export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new InvalidJsonError(`body is not valid JSON: ${(err as Error).message}`);
  }
}
