import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { RateLimitedError, toErrorEnvelope } from '../../../lib/errors';
import { decodeBody } from '../../../lib/ingest/validate/decode-body';
import { HostRateLimiter } from '../../../lib/ingest/rate-limit';
import { validateReports } from '../../../lib/ingest/validate/validate-reports';
import { reportSchema } from '../../../lib/protocol';
import { makeReport } from '../../support/report-factory';
import { thrownBy } from '../../support/thrown';

const NOW = Date.UTC(2026, 10, 29, 12);
const WINDOW = { nowMs: NOW, maxFutureMs: 300_000, maxAgeMs: 7 * 86_400_000 };
const LIMITS = { maxCompressedBytes: 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024 };

describe('validateReports', () => {
  test('accepts a realistic batch', () => {
    const reports = [realisticReport(1, NOW - 20_000), realisticReport(2, NOW - 10_000)];
    expect(validateReports({ reports }, WINDOW)).toHaveLength(2);
  });

  test.each([
    ['ts 5 min + 1 ms ahead', NOW + 300_001, /in the future/],
    ['ts older than 7 days', NOW - 7 * 86_400_000 - 1, /older than raw retention \(7 days\)/],
  ])('refuses %s naming the ts field', (_, ts, message) => {
    const err = thrownBy(() => validateReports({ reports: [realisticReport(1, NOW), realisticReport(2, ts)] }, WINDOW));
    expect(err.code).toBe('invalid_payload');
    expect(err.details?.[0]).toMatchObject({ path: 'reports.1.ts', message: expect.stringMatching(message) });
  });

  test('refuses a repeated seq and a repeated ts within one request', () => {
    const err = thrownBy(() => validateReports({ reports: [realisticReport(1, NOW), realisticReport(1, NOW - 1), realisticReport(2, NOW)] }, WINDOW));
    expect(err.details?.map((d) => d.path)).toEqual(['reports.1.seq', 'reports.2.ts']);
  });

  test('refuses values that do not fit their column, such as a CPU index above 32767', () => {
    const report = realisticReport(1, NOW);
    (report.cpu as { perCpu: { cpu: number }[] }).perCpu[2]!.cpu = 40_000;
    expect(thrownBy(() => validateReports(report, WINDOW)).details?.[0]?.path).toBe('cpu.perCpu.2.cpu');
  });

  // Found by the ingest fuzz: it passed the schema, and encoding the int4 column threw a RangeError (500).
  test('refuses a scraped server\'s droppedSeries above 2^31 - 1, naming the field', () => {
    const server = { name: 'vllm', ok: true, error: null, requestsPerS: 1, latencyMeanMs: 1, queueMeanMs: 1, waiting: 0, running: 1, batchSize: 1 };
    const report = { ...realisticReport(1, NOW), servers: [{ ...server, droppedSeries: 2 ** 31 }] };
    expect(thrownBy(() => validateReports(report, WINDOW)).details).toEqual([{ path: 'servers.0.droppedSeries', message: 'must be at most 2147483647' }]);
    expect(validateReports({ ...report, servers: [{ ...server, droppedSeries: 2 ** 31 - 1 }] }, WINDOW)).toHaveLength(1);
  });
});

describe('agent.collectors (each collector\'s duration and success)', () => {
  const withRuns = (collectors: unknown) => {
    const report = realisticReport(1, NOW);
    return { ...report, agent: { ...report.agent, collectors } };
  };

  test('a report without it, from an agent before it, is accepted', () => {
    const report = realisticReport(1, NOW);
    expect(report.agent).not.toHaveProperty('collectors');
    expect(validateReports(report, WINDOW)).toHaveLength(1);
  });

  test('a report with it is accepted and keeps it', () => {
    const runs = [{ name: 'cpu', durationMs: 1.25, ok: true }, { name: 'cpu-inventory', durationMs: 0, ok: false, error: 'cpu inventory: /proc/cpuinfo not readable' }];
    expect(validateReports(withRuns(runs), WINDOW)[0]?.agent.collectors).toEqual(runs);
  });

  test.each([
    ['a negative duration', [{ name: 'cpu', durationMs: -1, ok: true }], 'agent.collectors.0.durationMs', /too small/i],
    ['a duration past an hour', [{ name: 'cpu', durationMs: 3_600_001, ok: true }], 'agent.collectors.0.durationMs', /too big/i],
    ['a name that is not a collector name', [{ name: '/etc/passwd', durationMs: 1, ok: true }], 'agent.collectors.0.name', /must be a collector name/],
    ['an error over 200 characters', [{ name: 'cpu', durationMs: 1, ok: false, error: 'x'.repeat(201) }], 'agent.collectors.0.error', /too big/i],
    ['ok that is not a boolean', [{ name: 'cpu', durationMs: 1, ok: 'yes' }], 'agent.collectors.0.ok', /expected boolean/i],
    ['a collector named twice', [{ name: 'cpu', durationMs: 1, ok: true }, { name: 'cpu', durationMs: 2, ok: true }], 'agent.collectors', /each collector once/],
    ['more than 32 collectors', Array.from({ length: 33 }, (_, i) => ({ name: `c${i}`, durationMs: 1, ok: true })), 'agent.collectors', /too big/i],
  ])('refuses %s with a 400 naming the field', (_, runs, where, message) => {
    const { status, body } = toErrorEnvelope(thrownBy(() => validateReports(withRuns(runs), WINDOW)));
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_payload');
    expect(body.error.details?.[0]).toMatchObject({ path: where, message: expect.stringMatching(message) });
  });
});

describe('decodeBody', () => {
  test('gunzips a gzip body and passes identity through', () => {
    expect(decodeBody(gzipSync('{"a":1}'), 'gzip', LIMITS).toString()).toBe('{"a":1}');
    expect(decodeBody(Buffer.from('{}'), null, LIMITS).toString()).toBe('{}');
  });

  test('stops a gzip bomb at the decompressed limit with 413', () => {
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(thrownBy(() => decodeBody(bomb, 'gzip', LIMITS))).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  test('refuses deflate and brotli with 415', () => {
    expect(thrownBy(() => decodeBody(Buffer.from('x'), 'br', LIMITS))).toMatchObject({ status: 415 });
    expect(thrownBy(() => decodeBody(Buffer.from('x'), 'deflate', LIMITS))).toMatchObject({ status: 415 });
  });
});

describe('HostRateLimiter', () => {
  const limits = { requestsPerS: 1, requestBurst: 3, reportsPerMin: 60, reportBurst: 10 };

  test('allows the burst, then one request per second, per host', () => {
    const limiter = new HostRateLimiter(limits);
    for (let i = 0; i < 3; i++) limiter.takeRequest(1, 0);
    const err = thrownBy(() => limiter.takeRequest(1, 0));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.headers?.['Retry-After']).toBe('1');
    limiter.takeRequest(2, 0);
    limiter.takeRequest(1, 1000);
  });

  test('counts reports too, with a Retry-After long enough to refill what the request needs', () => {
    const limiter = new HostRateLimiter(limits);
    limiter.takeReports(1, 10, 0);
    const err = thrownBy(() => limiter.takeReports(1, 5, 0));
    expect(err.headers?.['Retry-After']).toBe('5');
    limiter.takeReports(1, 5, 5_000);
  });
});

test('a ts past the last instant a Date can hold is a 400 naming ts, not a 500 (found by the ingest fuzz)', () => {
  const report = { ...makeReport({ seq: 0 }), ts: 8_640_000_000_000_001 };
  const parsed = reportSchema.safeParse(report);
  expect(parsed.success).toBe(false);
  expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toEqual(['ts']);
});
