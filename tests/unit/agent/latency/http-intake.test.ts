import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createLatencyAggregator, type LatencyAggregator } from '../../../../agent/latency/aggregator';
import { MAX_INTAKE_BODY_BYTES, startHttpIntake, type HttpIntake } from '../../../../agent/latency/http-intake';
import type { ErrorEnvelope } from '../../../../lib/protocol/errors';

let aggregator: LatencyAggregator;
let intake: HttpIntake;

beforeEach(async () => {
  aggregator = createLatencyAggregator();
  intake = await startHttpIntake({ port: 0, aggregator });
});

afterEach(async () => {
  await intake.close();
});

async function post(body: string, contentType = 'application/json', path = '/v1/timings') {
  const res = await fetch(`http://127.0.0.1:${intake.port}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as ErrorEnvelope };
}

describe('startHttpIntake', () => {
  test('JSON timings are accepted with 202 and land in the aggregator, sample rate and tags included', async () => {
    const timings = [
      { name: 'predict', valueMs: 12.5, tags: { route: '/predict' } },
      { name: 'predict', valueMs: 40, tags: { route: '/predict' }, sampleRate: 0.5 },
      { name: 'embed', valueMs: 3 },
    ];
    const res = await post(JSON.stringify({ timings }));
    expect(res).toEqual({ status: 202, body: { accepted: 3, malformed: 0 } });
    const series = aggregator.drain();
    expect(series.map((s) => [s.name, s.tags, s.sketch.count, s.sketch.sum])).toEqual([
      ['predict', { route: '/predict' }, 3, 92.5],
      ['embed', {}, 1, 3],
    ]);
  });

  test('text/plain is refused: a web page on the host could post it to loopback without a preflight', async () => {
    const res = await post('predict:10|ms', 'text/plain; charset=utf-8');
    expect(res.status).toBe(415);
    expect(res.body.error.message).toContain('UDP');
    expect(aggregator.drain()).toEqual([]);
  });

  const invalid: Array<[string, string, RegExp]> = [
    ['a negative value', JSON.stringify({ timings: [{ name: 'p', valueMs: -1 }] }), /timings\.0\.valueMs/],
    ['a missing name', JSON.stringify({ timings: [{ valueMs: 1 }] }), /timings\.0\.name/],
    ['a sample rate of 0', JSON.stringify({ timings: [{ name: 'p', valueMs: 1, sampleRate: 0 }] }), /sampleRate/],
    ['a number as tag value', JSON.stringify({ timings: [{ name: 'p', valueMs: 1, tags: { a: 1 } }] }), /tags\.a/],
    ['no timings array', JSON.stringify({ values: [] }), /timings/],
  ];

  test.each(invalid)('a body with %s is refused with 400 and the field path, and nothing is recorded', async (_, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_payload');
    expect(res.body.error.message).toMatch(message);
    expect(aggregator.drain()).toEqual([]);
  });

  test('a body that is not JSON is refused with 400 invalid_json', async () => {
    const res = await post('{"timings": [');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  test('bodies over 1 MB are refused with 413', async () => {
    const res = await post('x'.repeat(MAX_INTAKE_BODY_BYTES + 1), 'application/json');
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  test('other paths, methods and content types get 404, 405 and 415', async () => {
    expect((await post('{}', 'application/json', '/v1/other')).status).toBe(404);
    const get = await fetch(`http://127.0.0.1:${intake.port}/v1/timings`);
    expect(get.status).toBe(405);
    expect((await post('a', 'application/x-www-form-urlencoded')).status).toBe(415);
  });
});
