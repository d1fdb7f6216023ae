import { describe, expect, test } from 'vitest';
import { chartAnnotations, latencyChartData, latencyResolutionNote, seriesChartData, withOverlay } from '../../../components/host/chart-data';
import type { HostAnnotation } from '../../../lib/protocol/read-api/annotations';
import type { LatencyBucket, LatencyResponse } from '../../../lib/protocol/read-api/latency';
import type { HostSeries, HostSeriesResponse, SeriesMetric } from '../../../lib/protocol/read-api/series';

const T0 = Date.UTC(2026, 11, 1, 10, 0);
const MIN = 60_000;
const WEEK = 7 * 24 * 60 * MIN;

function response(metric: SeriesMetric, series: HostSeries[], fromMs = T0, minutes = 5): HostSeriesResponse {
  return {
    hostId: 1,
    metric,
    unit: '%',
    from: new Date(fromMs).toISOString(),
    to: new Date(fromMs + minutes * MIN).toISOString(),
    resolution: '1m',
    bucketMs: MIN,
    series,
  };
}
const pts = (values: (number | null)[], fromMs = T0) => values.map((v, i) => ({ t: fromMs + i * MIN, avg: v, max: v === null ? null : v * 2 }));

describe('series → chart rows', () => {
  test('every bucket of the range is a row; a bucket without a value is a gap, not a zero', () => {
    const points = pts([1, 2, null, 4, 5]).filter((p) => p.avg !== null);
    const chart = seriesChartData([{ label: 'steal', response: response('cpu_steal', [{ key: null, points }], T0, 6) }])!;
    expect(chart.rows.map((r) => r.s0)).toEqual([1, 2, null, 4, 5, null]);
    expect(chart.rows.map((r) => r.t)).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * MIN));
    expect(chart.series).toEqual([{ key: 's0', label: 'steal', color: 'var(--series-1)' }]);
    expect(chart.hasData).toBe(true);
  });

  test('keyed series are named by key and metric; one metric alone by its key', () => {
    const disks = [{ key: 'nvme0n1', points: pts([1]) }, { key: '<img src=x onerror=alert(1)>', points: pts([2]) }];
    const two = seriesChartData([
      { label: 'read', response: response('disk_read_iops', disks) },
      { label: 'write', response: response('disk_write_iops', disks) },
    ])!;
    expect(two.series.map((s) => s.label)).toEqual(['nvme0n1 read', '<img src=x onerror=alert(1)> read', 'nvme0n1 write', '<img src=x onerror=alert(1)> write']);
    const one = seriesChartData([{ label: 'steal', response: response('cpu_steal_per_cpu', [{ key: '3', points: pts([1]) }, { key: 'worst', points: pts([2]) }]) }], {
      keyLabel: (k) => (k === 'worst' ? 'most-stolen vCPU' : `vCPU ${k}`),
    })!;
    expect(one.series.map((s) => s.label)).toEqual(['vCPU 3', 'most-stolen vCPU']);
  });

  test('peaks decide which series stay when there are too many; max reads the bucket peaks', () => {
    const series = [1, 5, 3].map((v, i) => ({ key: `cpu${i}`, points: pts([v]) }));
    const chart = seriesChartData([{ label: 'x', response: response('cpu_steal_per_cpu', series) }], { maxSeries: 2, value: 'max' })!;
    expect(chart.series.map((s) => s.label)).toEqual(['cpu1', 'cpu2']);
    expect(chart.rows[0]!.s0).toBe(10);
    expect(chart.hiddenSeries).toBe(1);
  });

  test('no answer yet is null; an answer without values has no data', () => {
    expect(seriesChartData([{ label: 'x', response: undefined }])).toBeNull();
    expect(seriesChartData([{ label: 'x', response: response('cpu_steal', []) }])!.hasData).toBe(false);
  });
});

describe('the same range a week earlier', () => {
  const now = [{ label: 'read', response: response('disk_read_iops', [{ key: 'sda', points: pts([1, 1, 1]) }]) }];
  const before = [{ label: 'read', response: response('disk_read_iops', [{ key: 'sda', points: pts([7, null, 9], T0 - WEEK) }], T0 - WEEK) }];

  test('overlays each series dashed in its colour, moved onto this week’s buckets', () => {
    const chart = withOverlay(seriesChartData(now)!, before, WEEK, 'each');
    expect(chart.series[1]).toMatchObject({ key: 's1', label: 'sda, a week earlier', color: chart.series[0]!.color, line: true });
    expect(chart.series[1]!.dash).toBeDefined();
    expect(chart.rows.map((r) => r.s1)).toEqual([7, null, 9, null, null]);
  });

  test('a stacked chart gets one line of the stack’s total', () => {
    const cpu = (v: number, fromMs: number) => response('cpu_user', [{ key: null, points: pts([v, v], fromMs) }], fromMs);
    const stack = seriesChartData([{ label: 'user', response: cpu(10, T0) }, { label: 'system', response: cpu(5, T0) }])!;
    const chart = withOverlay(stack, [{ label: 'user', response: cpu(30, T0 - WEEK) }, { label: 'system', response: cpu(2, T0 - WEEK) }], WEEK, 'total');
    expect(chart.series.map((s) => s.label)).toEqual(['user', 'system', 'total, a week earlier']);
    expect(chart.rows.map((r) => r.s2)).toEqual([32, 32, null, null, null]);
  });
});

describe('latency → chart rows', () => {
  const bucket = (t: number, count: number, p99: number): LatencyBucket => ({ t, count, p50: p99 / 4, p90: p99 / 2, p95: p99 / 1.5, p99, p999: p99 * 2, minMs: 1, maxMs: p99 * 3, meanMs: p99 / 3 });
  const latency = (buckets: LatencyBucket[], fromMs = T0, minutes = 3): LatencyResponse => ({
    scope: { kind: 'host', hostId: 1 },
    name: 'request',
    from: new Date(fromMs).toISOString(),
    to: new Date(fromMs + minutes * MIN).toISOString(),
    total: { count: 0, p50: null, p90: null, p95: null, p99: null, p999: null, minMs: null, maxMs: null, meanMs: null },
    series: { resolution: '1m', bucketMs: MIN, buckets },
  });

  test('p50, p95 and p99 per bucket; a bucket without requests is a gap', () => {
    const chart = latencyChartData(latency([bucket(T0, 10, 40), bucket(T0 + MIN, 4, 40), bucket(T0 + 2 * MIN, 0, 0), bucket(T0 + 3 * MIN, 5, 80)], T0, 4))!;
    expect(chart.series.map((s) => s.label)).toEqual(['p50', 'p95', 'p99']);
    expect(chart.rows.map((r) => r.s2)).toEqual([40, 40, null, 80]);
    expect(chart.rows.map((r) => r.s0)).toEqual([10, 10, null, 20]);
  });

  test('last week’s p99 is drawn dashed on this week’s buckets', () => {
    const chart = latencyChartData(latency([bucket(T0, 10, 40)]), { response: latency([bucket(T0 - WEEK + MIN, 3, 12)], T0 - WEEK), shiftMs: WEEK })!;
    expect(chart.series[3]).toMatchObject({ label: 'p99, a week earlier', line: true });
    expect(chart.rows.map((r) => r.s3)).toEqual([null, 12, null]);
    expect(latencyChartData(undefined)).toBeNull();
  });
});

describe('the latency chart’s claim about its precision', () => {
  const total = { count: 9, p50: 650, p90: 3500, p95: 3500, p99: 7700, p999: 7700, minMs: 150, maxMs: 7700, meanMs: 1200 };

  test('the agent’s own sketch claims nothing more', () => {
    expect(latencyResolutionNote(total)).toBeNull();
    expect(latencyResolutionNote(undefined)).toBeNull();
  });

  test('quantiles from a server’s buckets say so, with the widest error of the quantiles drawn', () => {
    const bucketError = { p50: 0.27, p90: 0.41, p95: 0.41, p99: 0.41, p999: 2 };
    expect(latencyResolutionNote({ ...total, bucketError })).toBe('From the server’s buckets (±41 %), not the agent’s 0.8 % sketch.');
  });

  test('a quantile beyond the server’s top bucket is said to be a lower bound', () => {
    const bucketError = { p50: 0.058, p90: 0.41, p95: 0.41, p99: null, p999: null };
    expect(latencyResolutionNote({ ...total, bucketError })).toBe(
      'From the server’s buckets (±41 %), not the agent’s 0.8 % sketch. p99 fell beyond its top bucket: the true value is higher than drawn.',
    );
  });
});

describe('annotations → chart marks', () => {
  const a = (kind: HostAnnotation['kind'], severity: HostAnnotation['severity'] = null): HostAnnotation => ({ t: T0, kind, severity, title: 'Steal <script>', detail: 'kernel a → b', refId: 1 });

  test('each kind has its glyph and colour; an end is green; the text says what happened', () => {
    const marks = chartAnnotations([a('inventory'), a('finding-opened', 'critical'), a('finding-resolved', 'critical'), a('alert-fired', 'warning'), a('alert-resolved', 'warning')]);
    expect(marks.map((m) => [m.glyph, m.color])).toEqual([
      ['I', 'var(--info)'],
      ['F', 'var(--bad)'],
      ['F', 'var(--ok)'],
      ['A', 'var(--warn)'],
      ['A', 'var(--ok)'],
    ]);
    expect(marks[0]!.text).toBe('Inventory changed: kernel a → b');
    expect(marks[1]!.text).toBe('Finding opened: Steal <script> — kernel a → b');
    expect(marks[4]!.text).toBe('Alert resolved: Steal <script>');
  });
});

describe('sparse points', () => {
  test('points every other bucket (an agent reporting every 20 s on 10 s buckets) draw on a 20 s grid without gaps', () => {
    const sparse: HostSeriesResponse = {
      ...response('cpu_steal', [{ key: null, points: [0, 2, 4].map((i) => ({ t: T0 + i * 10_000, avg: i, max: i })) }], T0, 1),
      resolution: 'raw',
      bucketMs: 10_000,
    };
    const chart = seriesChartData([{ label: 'steal', response: sparse }])!;
    expect(chart.bucketMs).toBe(20_000);
    expect(chart.rows.map((r) => r.s0)).toEqual([0, 2, 4]);
  });
});
