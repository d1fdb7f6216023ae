import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { AppError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../lib/errors';
import { decodeBody } from '../../../lib/ingest/validate/decode-body';
import { thrownBy } from '../../support/thrown';

// The basics (a small gzip body, identity via null, a 32 MB bomb with a truthful trailer, br and deflate refused)
// are in validate-and-limits.test.ts; these cover the output chunk sized from the gzip trailer (ISIZE) and the edges.

const LIMITS = { maxCompressedBytes: 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024 };
const KB = 1024;

/** Bytes that do not repeat (so gzip cannot shrink them much) with some non-ASCII text, the same on every run. */
function bytes(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 0x2545f491;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  out.write('«größe» ✓', 0, 'utf8');
  return out;
}

function withClaimedSize(gzip: Buffer, isize: number): Buffer {
  const forged = Buffer.from(gzip);
  forged.writeUInt32LE(isize, forged.length - 4);
  return forged;
}

describe('decodeBody with gzip', () => {
  test.each([0, 1, 1023, 1024, 1025, 64 * KB, 256 * KB - 1, 256 * KB, 256 * KB + 1, 700 * KB])(
    'decodes a body of %i bytes to exactly its bytes',
    (length) => {
      const original = bytes(length);
      const decoded = decodeBody(gzipSync(original), 'gzip', LIMITS);
      expect(decoded.length).toBe(length);
      expect(decoded.equals(original)).toBe(true);
    },
  );

  test('decodes concatenated gzip members exactly, though the trailer only gives the size of the last one', () => {
    const big = bytes(300 * KB);
    const small = Buffer.from('{"tail":"ü"}');
    const bigThenSmall = Buffer.concat([gzipSync(big), gzipSync(small)]);
    const smallThenBig = Buffer.concat([gzipSync(small), gzipSync(big)]);
    expect(decodeBody(bigThenSmall, 'gzip', LIMITS).equals(Buffer.concat([big, small]))).toBe(true);
    expect(decodeBody(smallThenBig, 'gzip', LIMITS).equals(Buffer.concat([small, big]))).toBe(true);
  });

  test.each([
    { claim: '0', isize: 0, length: 5_000 },
    { claim: '0', isize: 0, length: 300 * KB },
    { claim: '0xFFFFFFFF', isize: 0xffffffff, length: 5_000 },
    { claim: '0xFFFFFFFF', isize: 0xffffffff, length: 300 * KB },
  ])('refuses with 400 invalid_body a $length-byte body whose trailer was overwritten to claim $claim bytes (zlib checks the size)', ({ isize, length }) => {
    const original = bytes(length);
    const forged = withClaimedSize(gzipSync(original), isize);
    const err = thrownBy(() => decodeBody(forged, 'gzip', LIMITS));
    expect(err).toBeInstanceOf(AppError);
    expect(err).not.toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_body', message: 'body is not valid gzip' });
  });

  test.each([
    ['that is empty', () => Buffer.alloc(0)],
    ['of 3 bytes', () => Buffer.from([0x1f, 0x8b, 0x08])],
    ['shorter than a gzip header and trailer', () => Buffer.from('not gzip')],
    ['cut off before its trailer', () => gzipSync(bytes(300 * KB)).subarray(0, 200 * KB)],
    ['with a wrong CRC', () => {
      const body = gzipSync(bytes(5_000));
      body[body.length - 8] = body[body.length - 8]! ^ 0x01;
      return body;
    }],
  ])('refuses a body %s with 400 invalid_body', (_, body) => {
    expect(thrownBy(() => decodeBody(body(), 'gzip', LIMITS))).toMatchObject({ status: 400, code: 'invalid_body', message: 'body is not valid gzip' });
  });

  test('decodes a body of exactly maxDecompressedBytes and refuses one a byte longer with 413', () => {
    const original = bytes(300 * KB);
    const body = gzipSync(original);
    expect(decodeBody(body, 'gzip', { ...LIMITS, maxDecompressedBytes: 300 * KB }).equals(original)).toBe(true);
    const err = thrownBy(() => decodeBody(body, 'gzip', { ...LIMITS, maxDecompressedBytes: 300 * KB - 1 }));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ status: 413, code: 'payload_too_large', message: `decompressed body exceeds ${300 * KB - 1} bytes` });
  });

  const BOMB = gzipSync(Buffer.alloc(50 * 1024 * 1024));
  test.each([
    ['its true size', BOMB.readUInt32LE(BOMB.length - 4)],
    ['0 bytes', 0],
    ['1 KB', 1024],
    ['0xFFFFFFFF bytes', 0xffffffff],
  ])('stops a 50 MB gzip bomb whose trailer claims %s at a 1 MB limit with 413', (_, isize) => {
    expect(BOMB.length).toBeLessThan(64 * KB);
    const err = thrownBy(() => decodeBody(withClaimedSize(BOMB, isize), 'gzip', { ...LIMITS, maxDecompressedBytes: 1024 * 1024 }));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ status: 413, code: 'payload_too_large', message: 'decompressed body exceeds 1048576 bytes' });
  });

  test.each(['x-gzip', 'GZIP', ' gzip '])('accepts the content-encoding %j as gzip', (encoding) => {
    expect(decodeBody(gzipSync('{"a":"ü"}'), encoding, LIMITS).toString('utf8')).toBe('{"a":"ü"}');
  });
});

describe('decodeBody without gzip', () => {
  test.each([undefined, null, '', 'identity', ' Identity '])('passes the body through untouched for content-encoding %j', (encoding) => {
    const body = Buffer.from('{"v":"ü"}');
    expect(decodeBody(body, encoding, LIMITS)).toBe(body);
  });

  test('refuses a body over maxCompressedBytes with 413 whatever its encoding', () => {
    const body = Buffer.alloc(LIMITS.maxCompressedBytes + 1);
    for (const encoding of [null, 'gzip', 'zstd']) {
      const err = thrownBy(() => decodeBody(body, encoding, LIMITS));
      expect(err).toBeInstanceOf(PayloadTooLargeError);
      expect(err).toMatchObject({ status: 413, message: `request body exceeds ${LIMITS.maxCompressedBytes} bytes` });
    }
    expect(decodeBody(body.subarray(1), null, LIMITS).length).toBe(LIMITS.maxCompressedBytes);
  });

  test.each(['zstd', 'compress', 'gzip, br'])('refuses the unknown content-encoding %j with 415 naming it', (encoding) => {
    const err = thrownBy(() => decodeBody(gzipSync('{}'), encoding, LIMITS));
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err).toMatchObject({ status: 415, code: 'unsupported_media_type', message: `content-encoding ${encoding} is not supported; use gzip or identity` });
  });
});
