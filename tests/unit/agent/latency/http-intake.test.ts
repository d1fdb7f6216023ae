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
    expect(res).toEqual({ status: 202, body: { accepted: 3, dropped: 0, malformed: 0 } });
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

  // A misspelt field used to be dropped in silence: the tags, or the sample rate and with it the counts, were lost.
  const unknownFields: Array<[string, object, RegExp]> = [
    ['tag for tags', { name: 'p', valueMs: 1, tag: { route: '/predict' } }, /timings\.1: unknown field "tag"; a timing has name, valueMs, tags, sampleRate/],
    ['sample_rate for sampleRate', { name: 'p', valueMs: 1, sample_rate: 0.1 }, /unknown field "sample_rate"/],
    ['a timestamp, which the intake does not take', { name: 'p', valueMs: 1, ts: 1764944000000 }, /unknown field "ts"/],
  ];

  test.each(unknownFields)('a timing with %s is refused with 400 naming the field, and nothing is recorded', async (_, timing, message) => {
    const res = await post(JSON.stringify({ timings: [{ name: 'ok', valueMs: 2 }, timing] }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_payload');
    expect(res.body.error.message).toMatch(message);
    expect(aggregator.drain()).toEqual([]);
  });

  test('a bare array, or a body with other top-level fields, is refused with the shape the intake wants', async () => {
    const array = await post(JSON.stringify([{ name: 'p', valueMs: 1 }]));
    expect(array.status).toBe(400);
    expect(array.body.error.message).toContain('the body must be { "timings": [ … ] }');
    const extra = await post(JSON.stringify({ timings: [], service: 'predict' }));
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain('unknown field "service"');
  });

  test('a batch of 1,001 timings is taken whole: there is no limit of 1,000', async () => {
    const timings = Array.from({ length: 1001 }, (_, i) => ({ name: 'predict', valueMs: 5 + (i % 100) }));
    const res = await post(JSON.stringify({ timings }));
    expect(res).toEqual({ status: 202, body: { accepted: 1001, dropped: 0, malformed: 0 } });
    expect(aggregator.drain().map((s) => s.sketch.count)).toEqual([1001]);
  });

  test('the answer says how many timings the series limit dropped instead of counting them as accepted', async () => {
    await intake.close();
    aggregator = createLatencyAggregator({ maxSeries: 1 });
    intake = await startHttpIntake({ port: 0, aggregator });
    const timings = [
      { name: 'predict', valueMs: 10 },
      { name: 'embed', valueMs: 3 },
      { name: 'predict', valueMs: 12 },
      { name: 'embed', valueMs: 4 },
    ];
    const res = await post(JSON.stringify({ timings }));
    expect(res).toEqual({ status: 202, body: { accepted: 2, dropped: 2, malformed: 0 } });
    expect(aggregator.drain().map((s) => [s.name, s.sketch.count])).toEqual([['predict', 2]]);
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
