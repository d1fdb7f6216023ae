import { expect } from 'vitest';
import { z } from 'zod';

/**
 * Asserts that a response body is what its schema says, and nothing more: parsing must succeed, and give back the
 * body unchanged, so a field the schema does not name (dropped by a non-strict object) or one it would fill in (a
 * default) fails as surely as a wrong or missing one.
 */
export function expectMatches<T extends z.ZodType>(schema: T, body: unknown, what = 'the response'): z.output<T> {
  const result = schema.safeParse(body);
  if (!result.success) expect.fail(`${what} does not match its schema:\n${z.prettifyError(result.error)}`);
  expect(result.data, `${what} parses to something else than it is`).toEqual(body);
  return result.data;
}
