import { describe, expect, test } from 'vitest';
import { OPERATIONS } from '../../../lib/openapi/operations';
import { apiReference, typeText } from '../../../lib/openapi/reference';

describe('the API page’s reference', () => {
  const reference = apiReference();
  const find = (method: string, path: string) =>
    reference.groups.flatMap((g) => g.operations).find((op) => op.method === method && op.path === path)!;

  test('lists every documented operation once, under its tag', () => {
    expect(reference.groups.flatMap((g) => g.operations)).toHaveLength(OPERATIONS.length);
    expect(reference.groups.find((g) => g.tag === 'agents')!.operations.map((op) => op.path)).toEqual([
      '/api/v1/enroll',
      '/api/v1/ingest',
      '/install.sh',
      '/agent/inferwatch-agent.mjs',
      '/agent/inferwatch-agent.mjs.sha256',
    ]);
  });

  test('shows bodies, parameters, answers and tokens as short types', () => {
    const ingest = find('POST', '/api/v1/ingest');
    expect(ingest.body).toBe('Report | { reports: Report[] }');
    expect(ingest.auth).toEqual(['host token']);
    expect(ingest.responses.map((r) => r.status)).toEqual(['200', '400', '401', '409', '413', '415', '429', '500', '503']);
    expect(ingest.responses[0]!.type).toBe('{ accepted: integer, duplicate: integer, acknowledgedSeqs: integer[] }');
    const sparklines = find('GET', '/api/v1/fleet/sparklines');
    expect(sparklines.parameters[0]).toMatchObject({ name: 'ids', in: 'query', required: true, type: 'integer[] (comma-separated)' });
    expect(find('GET', '/api/v1/fleet').auth).toEqual(['session', 'API token', 'bootstrap token']);
    expect(find('GET', '/api/health').auth).toEqual([]);
    expect(find('GET', '/api/v1/alerts').parameters[0]).toMatchObject({ name: 'state', type: '"active" | "pending" | "firing" | "resolved" | "all" = "active"' });
    expect(find('GET', '/metrics').responses[0]!.type).toBe('text/plain; version=0.0.4');
  });

  test('writes nullable, enum and nested object types the way TypeScript would', () => {
    expect(typeText({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeText({ type: 'string', enum: ['a', 'b'] })).toBe('"a" | "b"');
    expect(typeText({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer' } } } }, required: ['a'] })).toBe('{ a: { b? } }');
    expect(typeText({ type: 'object', additionalProperties: { type: 'string' } })).toBe('Record<string, string>');
    // A time: RFC 3339's date-time, or Date#toJSON's six-digit year.
    expect(typeText({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string', pattern: '^x$' }, { type: 'null' }] })).toBe('string | null');
  });
});
