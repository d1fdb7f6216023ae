import { describe, expect, test } from 'vitest';
import { defineCollector } from '../../../agent/collectors/registration';
import type { Logger } from '../../../agent/log';
import type { ScrapeResult } from '../../../agent/scrape/scraper';
import { canonicalJson, createReportBuilder, type BuildInput, type ReportSources } from '../../../agent/report-builder';
import type { CpuSample, ProcessInventory } from '../../../lib/protocol';
import { collectorsReading, type FakeRead } from './fake-collectors';
import { createVirtualClock } from './virtual-clock';

const cpuSample: CpuSample = {
  total: { userPct: 10, nicePct: 0, systemPct: 5, iowaitPct: 1, irqPct: 0, softirqPct: 0, stealPct: 2, idlePct: 82 },
  perCpu: [],
  onlineCpus: 2,
  contextSwitchesPerS: 100,
  load1: 0.5,
  load5: 0.4,
  load15: 0.3,
  procsRunning: 1,
  procsBlocked: 0,
};

function capturingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (msg: string, fields?: object) => lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { logger, lines };
}

/** Every registered collector but scrape, reading test data; `reads` replaces some of them. */
function fakeSources(reads: Record<string, FakeRead> = {}, overrides: Partial<ReportSources> = {}) {
  const calls = { hostInventory: 0 };
  let processInventory: ProcessInventory[] = [];
  const sources: ReportSources = {
    resolveWatched: async () => [],
    collectors: collectorsReading({
      cpu: async () => cpuSample,
      pressure: async () => ({ unavailable: 'pressure: not present on this kernel' }),
      disks: async () => [],
      cgroups: async () => [],
      processes: async () => [],
      probes: async () => [],
      'process-inventory': async () => processInventory,
      host: async () => {
        calls.hostInventory++;
        return { kernel: '6.1.0', memTotalBytes: 1024, onlineCpus: 2 };
      },
      'cpu-inventory': async () => ({ unavailable: 'test' }),
      'disk-inventory': async () => [],
      'data-paths': async () => [],
      'cgroup-limits': async () => ({ unavailable: 'test' }),
      ...reads,
    }),
    drainLatency: () => [],
    malformedStatsdPackets: () => 3,
    ...overrides,
  };
  return { sources, calls, setProcessInventory: (p: ProcessInventory[]) => (processInventory = p) };
}

const input = (seq: number): BuildInput => ({
  seq,
  tsMs: 1_700_000_000_000 + seq,
  monoMs: 1000 * seq,
  intervalMs: 10_000,
  procRoot: '/proc',
  sysRoot: '/sys',
  droppedReports: 4,
  spoolBytes: 999,
});

const build = (sources: ReportSources, logger: Logger = capturingLogger().logger) =>
  createReportBuilder({ sources, host: { hostname: 'h', machineId: null }, version: '1.2.3', log: logger });

describe('createReportBuilder', () => {
  test('builds a report with the header, agent status and every section', async () => {
    const report = await build(fakeSources().sources).build(input(7));
    expect(report).toMatchObject({
      v: 1,
      seq: 7,
      ts: 1_700_000_000_007,
      intervalMs: 10_000,
      agent: { version: '1.2.3', droppedReports: 4, spoolBytes: 999, malformedStatsdPackets: 3 },
      cpu: cpuSample,
      pressure: { unavailable: 'pressure: not present on this kernel' },
    });
  });

  test('a collector that throws becomes {unavailable} and the report still goes out', async () => {
    const { sources } = fakeSources({
      disks: async () => Promise.reject(new Error('EIO reading diskstats')),
      processes: async () => Promise.reject(new Error('boom')),
    });
    const { logger, lines } = capturingLogger();
    const report = await build(sources, logger).build(input(0));
    expect(report.disks).toEqual({ unavailable: 'disks: collector failed: EIO reading diskstats' });
    expect(report.processes).toEqual([]);
    expect(report.cpu).toEqual(cpuSample);
    expect(lines.filter((l) => l.startsWith('error collector failed'))).toHaveLength(2);
  });

  test('includes the inventory at start and then only when its hash changes', async () => {
    const fake = fakeSources();
    const builder = build(fake.sources);
    const first = await builder.build(input(0));
    expect(first.inventory?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await builder.build(input(1))).inventory).toBeUndefined();
    fake.setProcessInventory([
      {
        name: 'python3',
        pid: 10,
        comm: 'python3',
        threads: 4,
        cpusAllowedList: '0-1',
        cpusAllowedCount: 2,
        env: { OMP_NUM_THREADS: '8' },
        cgroup: null,
        logWarnings: [],
      },
    ]);
    const changed = await builder.build(input(2));
    expect(changed.inventory?.processes).toHaveLength(1);
    expect(changed.inventory?.hash).not.toBe(first.inventory?.hash);
    expect((await builder.build(input(3))).inventory).toBeUndefined();
  });

  test('warmUp hands every rate collector the baseline time, and nothing else runs', async () => {
    const calledAt: Record<string, number[]> = {};
    const recorded = (name: string, value: unknown): FakeRead => async (ctx) => {
      (calledAt[name] ??= []).push(ctx.nowMs);
      return value;
    };
    const fake = fakeSources({
      cpu: recorded('cpu', cpuSample),
      pressure: recorded('pressure', { unavailable: 'test' }),
      disks: recorded('disks', []),
      cgroups: recorded('cgroups', []),
      processes: recorded('processes', []),
      probes: recorded('probes', []),
    });
    const builder = build(fake.sources);
    await builder.warmUp({ monoMs: 750, procRoot: '/proc', sysRoot: '/sys' });
    expect(calledAt).toEqual({ cpu: [750], pressure: [750], disks: [750], cgroups: [750], processes: [750] });
    expect(fake.calls.hostInventory).toBe(0);
    const report = await builder.build(input(1));
    expect(calledAt.cpu).toEqual([750, 1000]);
    expect(calledAt.probes).toEqual([1000]);
    expect(report.inventory).toBeDefined();
  });

  test('the model servers are scraped at warm-up (their baseline) and with every report: their series after StatsD’s, one entry each', async () => {
    const sketch = { count: 2, sum: 300, min: 150, max: 150, zeroCount: 0, keys: [314], counts: [2] };
    const scrapedAt: number[] = [];
    const fake = fakeSources(
      {
        scrape: async (ctx): Promise<ScrapeResult> => {
          scrapedAt.push(ctx.nowMs);
          return {
            latency: [
              { name: 'predict', tags: {}, sketch, bucketErrors: [1] },
              { name: 'vllm:e2e_request_latency_seconds', tags: { scrape: 'vllm' }, sketch, bucketErrors: [1] },
            ],
            servers: [{ name: 'vllm', ok: true, error: null, requestsPerS: 0.2, latencyMeanMs: 150, queueMeanMs: null, waiting: 3, running: 1, batchSize: null, droppedSeries: 0 }],
          };
        },
      },
      { drainLatency: () => [{ name: 'predict', tags: {}, sketch }] },
    );
    const { logger, lines } = capturingLogger();
    const builder = build(fake.sources, logger);
    await builder.warmUp({ monoMs: 750, procRoot: '/proc', sysRoot: '/sys' });
    const report = await builder.build(input(1));
    expect(scrapedAt).toEqual([750, 1000]);
    // A scraped series with the name and tags of a StatsD one is left out (one report holds each key once).
    expect(report.latency.map((l) => [l.name, l.bucketErrors ?? null])).toEqual([
      ['predict', null],
      ['vllm:e2e_request_latency_seconds', [1]],
    ]);
    expect(report.servers).toEqual([expect.objectContaining({ name: 'vllm', waiting: 3 })]);
    expect(lines.some((l) => l.includes('scraped latency series left out'))).toBe(true);
    expect((await build(fakeSources().sources).build(input(1))).servers).toBeUndefined();
  });

  test('re-reads the host inventory every 6th report', async () => {
    const fake = fakeSources();
    const builder = build(fake.sources);
    for (let seq = 0; seq < 13; seq++) await builder.build(input(seq));
    expect(fake.calls.hostInventory).toBe(3);
  });

  test('an invalid section is logged as a bug and replaced, not sent to be rejected', async () => {
    const { sources } = fakeSources({ cpu: async () => ({ ...cpuSample, load1: -1 }) });
    const { logger, lines } = capturingLogger();
    const report = await build(sources, logger).build(input(0));
    expect(report.cpu).toEqual({ unavailable: expect.stringContaining('invalid data from the agent at cpu.load1') });
    expect(lines.some((l) => l.startsWith('error BUG') && l.includes('cpu.load1'))).toBe(true);
  });

  test('an invalid item of a list is dropped alone and logged with its path; the rest of the list stays', async () => {
    const disk = { device: 'sda', class: 'ssd' as const, model: null, rotational: false, sizeBytes: 512, hwQueues: 1, scheduler: null };
    const fake = fakeSources({
      'disk-inventory': async () => [disk, { ...disk, device: 'sdb', sizeBytes: Number.NaN }, { ...disk, device: 'sdc' }],
      cpu: async () => ({ ...cpuSample, perCpu: [{ cpu: 0, ...cpuSample.total }, { cpu: 1, ...cpuSample.total, userPct: -3 }] }),
    });
    const { logger, lines } = capturingLogger();
    const report = await build(fake.sources, logger).build(input(0));
    expect(report.inventory?.disks).toEqual([disk, { ...disk, device: 'sdc' }]);
    expect(report.cpu).toEqual({ ...cpuSample, perCpu: [{ cpu: 0, ...cpuSample.total }] });
    expect(lines.filter((l) => l.startsWith('error BUG')).map((l) => JSON.parse(l.slice(l.indexOf('{'))).path)).toEqual([
      'cpu.perCpu.1.userPct',
      'inventory.disks.1.sizeBytes',
    ]);
  });
});

describe('agent.collectors: each collector\'s time and success, as node_exporter\'s scrape_collector metrics', () => {
  const buildOn = (sources: ReportSources, clock: { monoMs(): number }, logger: Logger = capturingLogger().logger) =>
    createReportBuilder({ sources, host: { hostname: 'h', machineId: null }, version: '1.2.3', log: logger, clock });

  test('every collector run is timed on the injected clock and says whether it gave data; one that throws stops none of the others', async () => {
    const clock = createVirtualClock();
    const { sources } = fakeSources({
      disks: async () => {
        // Resumes after every other collector has finished: only its own 40 ms land in its duration.
        await new Promise((resolve) => setImmediate(resolve));
        clock.advance(40);
        return [];
      },
      cgroups: async () => Promise.reject(new Error('EACCES reading cpu.stat')),
    });
    const report = await buildOn(sources, clock).build(input(0));
    const ok = (name: string, durationMs = 0) => ({ name, durationMs, ok: true });
    const failed = (name: string, error: string) => ({ name, durationMs: 0, ok: false, error });
    expect(report.agent.collectors).toEqual([
      ok('cpu'),
      failed('pressure', 'pressure: not present on this kernel'),
      ok('disks', 40),
      failed('cgroups', 'cgroups: collector failed: EACCES reading cpu.stat'),
      ok('processes'),
      ok('probes'),
      ok('process-inventory'),
      ok('host'),
      failed('cpu-inventory', 'test'),
      ok('disk-inventory'),
      ok('data-paths'),
      failed('cgroup-limits', 'test'),
    ]);
    expect(report.cpu).toEqual(cpuSample);
    expect(report.disks).toEqual([]);
    expect(report.cgroups).toEqual({ unavailable: 'cgroups: collector failed: EACCES reading cpu.stat' });
    expect(report.inventory?.host.kernel).toBe('6.1.0');
  });

  test('the inventory collectors are listed only in the reports that re-read them', async () => {
    const builder = buildOn(fakeSources().sources, createVirtualClock());
    const names = async (seq: number) => (await builder.build(input(seq))).agent.collectors?.map((c) => c.name);
    expect(await names(0)).toContain('host');
    expect(await names(1)).toEqual(['cpu', 'pressure', 'disks', 'cgroups', 'processes', 'probes', 'process-inventory']);
  });

  test('an error is cut to the protocol\'s 200 characters; the section keeps its longer reason', async () => {
    const { sources } = fakeSources({ cpu: async () => Promise.reject(new Error('x'.repeat(1000))) });
    const report = await buildOn(sources, createVirtualClock()).build(input(0));
    const cpuRun = report.agent.collectors?.find((c) => c.name === 'cpu');
    expect(cpuRun).toEqual({ name: 'cpu', durationMs: 0, ok: false, error: `cpu: collector failed: ${'x'.repeat(177)}` });
    expect(report.cpu).toEqual({ unavailable: `cpu: collector failed: ${'x'.repeat(477)}` });
  });

  test('a collector list the protocol refuses is a bug: logged, left out, and the report still goes out', async () => {
    const misnamed = defineCollector({ name: 'Not A Name', reads: ['nothing'], cadence: 'interval', create: () => null, toReport: () => ({}) });
    const { sources } = fakeSources();
    const { logger, lines } = capturingLogger();
    const report = await buildOn({ ...sources, collectors: [...sources.collectors, misnamed.withSource({ collect: async () => 1 })] }, createVirtualClock(), logger).build(input(0));
    expect(report.agent.collectors).toBeUndefined();
    expect(report.cpu).toEqual(cpuSample);
    expect(lines.some((l) => l.startsWith('error BUG') && l.includes('agent.collectors.12.name'))).toBe(true);
  });
});

test('canonicalJson sorts keys at every level so equal data hashes the same', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
});
