import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { reportSchema } from '../../../lib/protocol';

const issuesOf = (patch: (keys: unknown[], counts: unknown[]) => void) => {
  const report = realisticReport(1, Date.now());
  const sketch = report.latency[0]!.sketch as { keys: unknown[]; counts: unknown[] };
  patch(sketch.keys, sketch.counts);
  const result = reportSchema.safeParse(report);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('sketch bucket arrays (one pass instead of a schema per element)', () => {
  test.each([
    ['a fractional key', (k: unknown[]) => { k[3] = 2.5; }, 'latency.0.sketch.keys.3: expected an integer from -32768 to 32767'],
    ['a key beyond int2', (k: unknown[]) => { k[k.length - 1] = 40_000; }, /latency\.0\.sketch\.keys\.\d+: expected an integer from -32768 to 32767/],
    ['a string key', (k: unknown[]) => { k[0] = '1'; }, 'latency.0.sketch.keys.0: expected an integer from -32768 to 32767'],
    ['keys out of order', (k: unknown[]) => { [k[1], k[2]] = [k[2], k[1]]; }, 'latency.0.sketch.keys.2: keys must be strictly increasing'],
    ['a zero count', (_: unknown[], c: unknown[]) => { c[2] = 0; }, 'latency.0.sketch.counts.2: expected an integer from 1 to 2147483647'],
    ['a count beyond int4', (_: unknown[], c: unknown[]) => { c[2] = 2 ** 31; }, 'latency.0.sketch.counts.2: expected an integer from 1 to 2147483647'],
    ['a missing count', (_: unknown[], c: unknown[]) => { c.pop(); }, 'latency.0.sketch.counts: keys and counts must have the same length'],
  ] as const)('%s is refused with the field named', (_, patch, expected) => {
    const issues = issuesOf(patch as (k: unknown[], c: unknown[]) => void);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(expected);
  });

  test('more than 4096 buckets or a non-array are refused', () => {
    expect(issuesOf((k) => k.push(...Array.from({ length: 4100 }, (_, i) => 40_000 + i)))[0]).toMatch(/latency\.0\.sketch\.keys: expected an array of at most 4096/);
    const report = realisticReport(1, Date.now()) as unknown as { latency: { sketch: { counts: unknown } }[] };
    report.latency[0]!.sketch.counts = { 0: 1 };
    expect(reportSchema.safeParse(report).success).toBe(false);
  });

  test('a realistic report passes', () => {
    expect(issuesOf(() => {})).toEqual([]);
  });
});
