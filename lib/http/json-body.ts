import { InvalidJsonError } from '../errors';
import { readBodyLimited } from './limited-body';

const MAX_JSON_BYTES = 256 * 1024;

/**
 * A write endpoint's JSON body, or 400/413 with the error envelope; the caller's zod schema does the rest. Read as it
 * streams in and refused as soon as it passes `maxBytes`; call it after the route's credential check.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BYTES): Promise<unknown> {
  const body = await readBodyLimited(request.body, request.headers.get('content-length'), maxBytes);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new InvalidJsonError('body is not valid JSON');
  }
}
