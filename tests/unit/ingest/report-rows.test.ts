import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { reportToRows, rowCount, toCopyText } from '../../../bench/_ingest-encoding';
import { toColumnArrays } from '../../../lib/ingest/write/embedded-writer';
import { inventoryChanges } from '../../../lib/ingest/write/inventory';
import { inlineArrayParams } from '../../../lib/ingest/write/pg-array';
import { planWrites, resultsByRequest } from '../../../lib/ingest/write/plan';
import { canonicalTags } from '../../../lib/ingest/write/report-rows';
import { SERIES_SPECS } from '../../../lib/ingest/write/table-specs';
import { reportSchema, type Report } from '../../../lib/protocol';

const TS = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('reportToRows', () => {
  test('one report becomes 1 host, 1 per-CPU and 1 disk (of arrays), 1 cgroup, 2 process and 3 latency rows for the token host', () => {
    const rows = reportToRows(42, realisticReport(1, TS));
    expect(Object.fromEntries(Object.entries(rows).map(([k, t]) => [k, rowCount(t)]))).toEqual({
      host: 1, cpu: 1, disk: 1, cgroup: 1, process: 2, latency: 3, probe: 0, server: 0,
    });
    for (const table of Object.values(rows)) {
      for (let i = 0; i < table.values.length; i += table.width) {
        expect(table.values[i]).toBe(42);
        expect(table.values[i + 1]).toBe('2026-11-29T12:00:00.000Z');
      }
    }
  });

  test('every row has exactly as many values as its table has columns', () => {
    const rows = reportToRows(1, realisticReport(1, TS));
    for (const [kind, table] of Object.entries(rows)) {
      expect(table.width).toBe(SERIES_SPECS[kind as keyof typeof SERIES_SPECS].columns.length);
      expect(table.values.length % table.width).toBe(0);
    }
  });

  test('per-CPU values become one array per column, in the report\'s CPU order', () => {
    const report = realisticReport(1, TS);
    const cpu = report.cpu as Exclude<Report['cpu'], { unavailable: string }>;
    cpu.perCpu = [cpu.perCpu[3]!, cpu.perCpu[0]!];
    const [row] = [reportToRows(1, report).cpu.values];
    const [a, b] = cpu.perCpu;
    expect(row).toEqual([
      1, '2026-11-29T12:00:00.000Z', [3, 0],
      [a!.userPct, b!.userPct], [a!.nicePct, b!.nicePct], [a!.systemPct, b!.systemPct], [a!.iowaitPct, b!.iowaitPct],
      [a!.irqPct, b!.irqPct], [a!.softirqPct, b!.softirqPct], [a!.stealPct, b!.stealPct], [a!.idlePct, b!.idlePct],
    ]);
  });

  test('disks become one array per column, in the report\'s order', () => {
    const report = realisticReport(1, TS);
    const disks = report.disks as Exclude<Report['disks'], { unavailable: string }>;
    const [a, b] = [disks[2]!, disks[0]!];
    report.disks = [a, b];
    expect(reportToRows(1, report).disk.values).toEqual([
      1, '2026-11-29T12:00:00.000Z', [a.device, b.device],
      [a.readIops, b.readIops], [a.writeIops, b.writeIops], [a.readBytesPerS, b.readBytesPerS], [a.writeBytesPerS, b.writeBytesPerS],
      [a.readAwaitMs, b.readAwaitMs], [a.writeAwaitMs, b.writeAwaitMs], [a.queueDepth, b.queueDepth], [a.inFlight, b.inFlight],
      [a.utilPct, b.utilPct],
    ]);
    report.disks = [];
    expect(rowCount(reportToRows(1, report).disk)).toBe(0);
  });

  test('a report without per-CPU values has no per-CPU row', () => {
    const report = realisticReport(1, TS);
    (report.cpu as Exclude<Report['cpu'], { unavailable: string }>).perCpu = [];
    expect(rowCount(reportToRows(1, report).cpu)).toBe(0);
  });

  test('host samples carry steal and iowait where the columns say, and PSI full may be null', () => {
    const report = realisticReport(1, TS);
    const cpu = report.cpu as Exclude<Report['cpu'], { unavailable: string }>;
    const pressure = report.pressure as { cpu: unknown; io: { some: object; full: null }; memory: unknown };
    pressure.io.full = null;
    const host = reportToRows(1, report).host;
    const col = (name: string) => host.values[SERIES_SPECS.host.columns.indexOf(name)];
    expect(col('cpu_steal_pct')).toBe(cpu.total.stealPct);
    expect(col('cpu_iowait_pct')).toBe(cpu.total.iowaitPct);
    expect(col('psi_io_full_pct')).toBeNull();
    expect(col('interval_ms')).toBe(10_000);
  });

  test('an unavailable CPU collector gives NULL CPU columns and no per-CPU rows, not zeros', () => {
    const report = { ...realisticReport(1, TS), cpu: { unavailable: '/proc/stat unreadable' }, disks: { unavailable: 'x' } };
    const rows = reportToRows(1, report);
    const host = rows.host.values;
    expect(host.slice(3, 12)).toEqual([null, null, null, null, null, null, null, null, null]);
    expect(rowCount(rows.cpu)).toBe(0);
    expect(rowCount(rows.disk)).toBe(0);
  });

  test('a scraped server becomes a server row; a series from its buckets keeps one error per key, the open top bucket as Infinity', () => {
    const report = realisticReport(1, TS);
    report.latency = [{ ...report.latency[0]!, sketch: { count: 3, sum: 9, min: 1, max: 5, zeroCount: 0, keys: [10, 20], counts: [2, 1] }, bucketErrors: [0.41, null] }];
    report.servers = [{ name: 'vllm', ok: false, error: 'HTTP 503', requestsPerS: null, latencyMeanMs: null, queueMeanMs: null, waiting: null, running: null, batchSize: null, droppedSeries: 2 }];
    const rows = reportToRows(7, report);
    const latency = toColumnArrays(rows.latency, SERIES_SPECS.latency);
    expect(latency.at(-1)).toEqual(['{0.41,Infinity}']);
    // An agent from before the KV cache fields sends none of them: stored as NULL.
    expect(rows.server.values).toEqual([7, '2026-11-29T12:00:00.000Z', 'vllm', false, null, null, null, null, null, null, 2, 'HTTP 503', null, null, null]);
  });

  test('an LLM engine’s KV cache, preemptions and mean time per token are stored with its server row', () => {
    const report = realisticReport(1, TS);
    report.servers = [
      { name: 'vllm', ok: true, error: null, requestsPerS: 3, latencyMeanMs: 900, queueMeanMs: 40, waiting: 2, running: 30, batchSize: null, droppedSeries: 0, tokenMeanMs: null, kvCachePct: 98, preemptionsPerMin: 40 },
    ];
    expect(reportSchema.safeParse(report).success).toBe(true);
    expect(reportToRows(7, report).server.values.slice(-3)).toEqual([null, 98, 40]);
    const fuller = { ...report, servers: [{ ...report.servers[0]!, kvCachePct: 101 }] };
    expect(reportSchema.safeParse(fuller).success).toBe(false);
  });

  test('latency tags become canonical JSON whatever their order', () => {
    expect(canonicalTags({ model: 'a', route: '/v1' })).toBe(canonicalTags({ route: '/v1', model: 'a' }));
    expect(canonicalTags({})).toBe('{}');
  });
});

describe('COPY text and unnest parameters', () => {
  test('escapes tabs, newlines and backslashes, writes NULL as \\N and arrays as literals', () => {
    const text = toCopyText({ width: 5, values: ['a\tb\nc\\d', null, true, [1, -2, 3], ['vda', 'a"b\tc']] });
    expect(text).toBe('a\\tb\\nc\\\\d\t\\N\tt\t{1,-2,3}\t{"vda","a\\\\"b\\tc"}\n');
  });

  test('array columns are passed to unnest as text literals', () => {
    const rows = reportToRows(1, realisticReport(1, TS));
    const columns = toColumnArrays(rows.latency, SERIES_SPECS.latency);
    expect(columns[9]![0]).toMatch(/^\{-?\d+(,-?\d+)*\}$/);
  });

  test('inlined array parameters quote strings safely', () => {
    const sql = inlineArrayParams('SELECT $1::text[], $2::int4[]', [["it's", 'a"b\\c'], [1, 2]], (t) => `'${t.replace(/'/g, "''")}'`);
    expect(sql).toBe(`SELECT '{"it''s","a\\"b\\\\c"}'::text[], '{1,2}'::int4[]`);
  });
});

describe('write plans', () => {
  test('a (host, seq) twice in one flush is stored once and the second copy is a duplicate', () => {
    const a = realisticReport(5, TS);
    const plan = planWrites([{ hostId: 1, reports: [a] }, { hostId: 1, reports: [a] }, { hostId: 2, reports: [a] }]);
    expect(plan.unique.map((u) => [u.hostId, u.request])).toEqual([[1, 0], [2, 2]]);
    expect(resultsByRequest(plan, [true, false], 3)).toEqual([
      { acceptedSeqs: [5], duplicateSeqs: [] },
      { acceptedSeqs: [], duplicateSeqs: [5] },
      { acceptedSeqs: [], duplicateSeqs: [5] },
    ]);
  });

  test('only inventories whose hash differs from the previous one of the host are kept', () => {
    const inv = (hash: string) => ({ hash }) as unknown as Report['inventory'];
    const r = (seq: number, hash?: string) => ({ ...realisticReport(seq, TS + seq * 60_000), ...(hash ? { inventory: inv(hash) } : {}) });
    const plan = planWrites([{ hostId: 1, reports: [r(1, 'a'), r(2, 'a'), r(3), r(4, 'b'), r(5, 'a')] }]);
    expect(inventoryChanges(plan.unique).map((c) => c.inventory.hash)).toEqual(['a', 'b', 'a']);
  });

  test('changes seconds apart each keep their own time: a restart right after a warm-up is a change of its own', () => {
    const inv = (hash: string) => ({ hash }) as unknown as Report['inventory'];
    const r = (seq: number, atS: number, hash: string) => ({ ...realisticReport(seq, TS + atS * 1000), inventory: inv(hash) });
    const plan = planWrites([{ hostId: 1, reports: [r(1, 0, 'a'), r(2, 10, 'b'), r(3, 20, 'b'), r(4, 30, 'c')] }]);
    expect(inventoryChanges(plan.unique).map((c) => [c.takenAtMs - TS, c.inventory.hash])).toEqual([[0, 'a'], [10_000, 'b'], [30_000, 'c']]);
  });
});
