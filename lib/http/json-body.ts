import { InvalidJsonError, PayloadTooLargeError } from '../errors';

const MAX_JSON_BYTES = 256 * 1024;

/** A write endpoint's JSON body, or 400/413 with the error envelope; the caller's zod schema does the rest. */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BYTES): Promise<unknown> {
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) throw new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidJsonError('body is not valid JSON');
  }
}
