import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../agent/config';
import { silentLogger } from '../../../agent/log';
import type { ReportSources } from '../../../agent/report-builder';
import { runAgent } from '../../../agent/run';
import type { Report } from '../../../lib/protocol';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sourcesWithCollectionTime(collectMs: number): ReportSources {
  const unavailable = { name: 'x', collect: async () => ({ unavailable: 'test' }) };
  return {
    resolveWatched: async () => [],
    collectors: {
      cpu: { name: 'cpu', collect: async () => (await sleep(collectMs), { unavailable: 'test' }) },
      pressure: unavailable,
      disks: unavailable,
      cgroups: unavailable,
      processes: { name: 'p', collect: async () => [] },
      probes: { name: 'p', collect: async () => [] },
    },
    collectHostInventory: async () => ({ host: { kernel: null, memTotalBytes: null, onlineCpus: 1 }, cpu: { unavailable: 't' }, disks: [], dataPaths: [], cgroup: { unavailable: 't' } }),
    collectProcessInventory: async () => [],
    drainLatency: () => [],
    malformedStatsdPackets: () => 0,
  };
}

async function runFor(ms: number, intervalS: string, collectMs: number): Promise<Report[]> {
  const action = loadConfig({ argv: ['--print', '--interval', intervalS], env: {} });
  if (action.kind !== 'run') throw new Error('expected run');
  const reports: Report[] = [];
  const controller = new AbortController();
  const done = runAgent({
    config: action.config,
    log: silentLogger,
    signal: controller.signal,
    print: (text) => reports.push(JSON.parse(text) as Report),
    sources: sourcesWithCollectionTime(collectMs),
  });
  await sleep(ms);
  controller.abort();
  expect(await done).toBe(0);
  return reports;
}

describe('runAgent loop', () => {
  test('ticks on a fixed grid: a slow collection does not push later ticks back', async () => {
    const reports = await runFor(1150, '0.2', 120);
    expect(reports.length).toBeGreaterThanOrEqual(5);
    expect(reports.map((r) => r.seq)).toEqual(reports.map((_, i) => i));
    for (const report of reports.slice(1)) expect(Math.abs(report.intervalMs - 200)).toBeLessThan(40);
    // Drift-free: tick k lands at start + k·200 ms, so the k-th report is not k·(200 + 120) ms late.
    const spanMs = reports.at(-1)!.ts - reports[1]!.ts;
    expect(Math.abs(spanMs - (reports.length - 2) * 200)).toBeLessThan(60);
  });

  test('skips ticks when a collection overruns the interval and measures the real elapsed time', async () => {
    const reports = await runFor(1300, '0.2', 300);
    expect(reports.length).toBeGreaterThanOrEqual(2);
    for (const report of reports.slice(1)) expect(Math.abs(report.intervalMs - 400)).toBeLessThan(60);
  });

  test('only the first report carries the inventory when nothing changes', async () => {
    const reports = await runFor(500, '0.1', 0);
    expect(reports[0]!.inventory).toBeDefined();
    expect(reports.slice(1).every((r) => r.inventory === undefined)).toBe(true);
  });
});
