import { gunzipSync } from 'node:zlib';
import { AppError, InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors';

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
    return gunzipSync(body, { maxOutputLength: limits.maxDecompressedBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
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
