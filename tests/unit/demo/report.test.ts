import { describe, expect, test } from 'vitest';
import { CONDITIONS, DEMO_HOST_COUNT, DEMO_LABELS, REGION_SHOWS, demoFleet, reportsUntilMs, type DemoCondition, type DemoHost } from '../../../lib/demo/fleet';
import { demoInventory } from '../../../lib/demo/inventory';
import { kvEpisodes } from '../../../lib/demo/behaviour';
import { ITL_NAME, TTFT_NAME } from '../../../lib/demo/latency';
import { demoReport } from '../../../lib/demo/report';
import { ingestBatchSchema, isUnavailable, reportSchema, type Inventory, type Report } from '../../../lib/protocol';
import { LatencySketch } from '../../../lib/sketch';
import { judgeFleet, reportsBetween, windowOf } from './judge-reports';

const EPOCH_MS = Date.UTC(2026, 11, 1, 11, 0, 0);
const fleet = demoFleet({ epochMs: EPOCH_MS });
const MIN = 60_000;
const HOUR = 60 * MIN;

const hostWith = (condition: DemoCondition) => fleet.find((h) => h.condition === condition)!;
const cleanHosts = fleet.filter((h) => h.condition === null);
const cpuOf = (r: Report) => (isUnavailable(r.cpu) ? null : r.cpu)!;
const cpuInventoryOf = (inventory: Inventory) => (isUnavailable(inventory.cpu) ? null : inventory.cpu)!;
const disksOf = (r: Report) => (isUnavailable(r.disks) ? [] : r.disks);
const fiveMinuteWindows = (host: DemoHost, fromMs: number, hours: number) =>
  Array.from({ length: hours * 12 }, (_, i) => {
    const to = fromMs + (i + 1) * 5 * MIN;
    return windowOf(reportsBetween(host, to - 5 * MIN, to), to - 5 * MIN, to)!;
  });

describe('the demo fleet', { timeout: 60_000 }, () => {
  test('about 40 hosts as many in oslo as in frankfurt, a small LLM region, most of them clean, every condition planted once', () => {
    expect(fleet.length).toBe(DEMO_HOST_COUNT);
    expect(fleet.filter((h) => h.region === 'oslo')).toHaveLength(21);
    expect(fleet.filter((h) => h.region === 'frankfurt')).toHaveLength(21);
    expect(fleet.filter((h) => h.region === 'stockholm').map((h) => h.service)).toEqual(['vllm', 'vllm', 'vllm', 'vllm', 'llama-server']);
    expect(cleanHosts.length).toBeGreaterThan(fleet.length / 2);
    const planted = fleet.flatMap((h) => (h.condition ? [h.condition] : []));
    expect(new Set(planted).size).toBe(planted.length);
    expect(new Set(planted)).toEqual(new Set(Object.keys(CONDITIONS)));
    expect(new Set(fleet.map((h) => h.hostname)).size).toBe(fleet.length);
    expect(DEMO_LABELS).toMatchObject({ demo: 'true' });
  });

  test('is the same for the same seed and different for another', () => {
    expect(demoFleet({ epochMs: EPOCH_MS })).toEqual(fleet);
    const other = demoFleet({ seed: 'another', epochMs: EPOCH_MS });
    expect(other.map((h) => h.hostname)).toEqual(fleet.map((h) => h.hostname));
    expect(other.map((h) => h.phaseMs)).not.toEqual(fleet.map((h) => h.phaseMs));
  });
});

describe('demoReport', { timeout: 60_000 }, () => {
  test('every host\'s reports, with and without inventory, validate against the protocol schema', () => {
    for (const host of fleet) {
      for (const ts of [EPOCH_MS - 30 * MIN, EPOCH_MS + 7 * HOUR + 13_000]) {
        const withInventory = demoReport(host, ts, 7, { inventory: true });
        expect(reportSchema.safeParse(withInventory).error?.issues ?? []).toEqual([]);
        expect(withInventory.inventory).toEqual(demoInventory(host));
        expect(reportSchema.safeParse(demoReport(host, ts, 8)).success).toBe(true);
      }
    }
    const batch = reportsBetween(fleet[0]!, EPOCH_MS - HOUR, EPOCH_MS);
    expect(batch).toHaveLength(360);
    expect(ingestBatchSchema.safeParse({ reports: batch }).success).toBe(true);
  });

  test('is a pure function of host, time and seq', () => {
    const host = hostWith('noisy-neighbour');
    expect(demoReport(host, EPOCH_MS, 3, { inventory: true })).toEqual(demoReport(host, EPOCH_MS, 3, { inventory: true }));
    expect(demoReport(host, EPOCH_MS + 10_000, 4)).not.toEqual(demoReport(host, EPOCH_MS, 4));
  });

  test('the inventory hash changes only with the inventory', () => {
    const hashes = fleet.map((h) => demoInventory(h).hash);
    expect(new Set(hashes).size).toBe(fleet.length);
    expect(demoInventory(fleet[5]!).hash).toBe(hashes[5]);
  });

  test('hosts report the diurnal load: more requests at 16:00 Oslo time than at 04:00', () => {
    const requests = (r: Report) => r.latency.reduce((n, s) => n + s.sketch.count, 0);
    for (const host of cleanHosts.slice(0, 5)) {
      const night = requests(demoReport(host, Date.UTC(2026, 11, 1, 3, 0), 1));
      const afternoon = requests(demoReport(host, Date.UTC(2026, 11, 1, 15, 0), 1));
      expect(afternoon).toBeGreaterThan(2 * night);
    }
  });
});

describe('the planted conditions are in the reports', { timeout: 60_000 }, () => {
  test('noisy neighbour: steal above 5 % in every 5-minute window of a day, spiking past 20 % every few minutes, worst on vCPUs 2, 3 and 6', () => {
    const host = hostWith('noisy-neighbour');
    const windows = fiveMinuteWindows(host, EPOCH_MS, 24);
    expect(Math.min(...windows.map((w) => w.stealPct!.avg))).toBeGreaterThan(5);
    expect(windows.filter((w) => w.stealPct!.max > 20).length).toBeGreaterThan(windows.length / 3);
    expect(windows.filter((w) => w.stealPct!.max < 12).length).toBeGreaterThan(0);
    expect(windows[0]!.perCpuStealPct.slice(0, 3).map((c) => c.cpu).sort()).toEqual([2, 3, 6]);
    // Its own load never explains its CPU pressure away: PSI stays below the pressure rule's 20 %.
    expect(Math.max(...windows.map((w) => w.psiCpuSomePct!.avg))).toBeLessThan(20);
  });

  test('noisy neighbour: its request p99 rises in step with steal', () => {
    const host = hostWith('noisy-neighbour');
    const reports = reportsBetween(host, EPOCH_MS, EPOCH_MS + 6 * HOUR);
    const p99Where = (keep: (steal: number) => boolean) => {
      const sketch = new LatencySketch();
      for (const r of reports.filter((r) => keep(cpuOf(r).total.stealPct))) for (const s of r.latency) sketch.merge(s.sketch);
      return sketch.quantile(0.99)!;
    };
    expect(p99Where((steal) => steal > 25)).toBeGreaterThan(1.5 * p99Where((steal) => steal < 11));
  });

  test('clean hosts: steal below 3 %, iowait below 7 %, CPU pressure below 20 %, NVMe awaits under a millisecond', () => {
    for (const host of cleanHosts) {
      for (const w of fiveMinuteWindows(host, EPOCH_MS, 1)) {
        expect(w.stealPct!.avg).toBeLessThan(3);
        expect(w.iowaitPct!.avg).toBeLessThan(7);
        expect(w.psiCpuSomePct!.avg).toBeLessThan(20);
        for (const d of w.disks) expect(Math.max(d.readAwaitMs.max, d.writeAwaitMs.max)).toBeLessThan(1);
      }
    }
  });

  test('SATA host: /models on a SATA SSD whose queue and read await are high, and iowait above 10 %', () => {
    const host = hostWith('sata-await');
    const inventory = demoInventory(host);
    expect(inventory.dataPaths).toContainEqual(expect.objectContaining({ path: '/models', device: 'sda' }));
    expect(isUnavailable(inventory.disks) ? [] : inventory.disks).toContainEqual(expect.objectContaining({ device: 'sda', class: 'ssd', rotational: false }));
    for (const w of fiveMinuteWindows(host, EPOCH_MS, 2)) {
      const sda = w.disks.find((d) => d.device === 'sda')!;
      expect(sda.queueDepth.avg).toBeGreaterThan(4);
      expect(sda.readAwaitMs.avg).toBeGreaterThan(20);
      expect(w.iowaitPct!.avg).toBeGreaterThan(10);
    }
    const sample = disksOf(demoReport(host, EPOCH_MS, 1))[0]!;
    // aqu-sz is what Little's law says the IOPS and awaits imply.
    expect(sample.queueDepth).toBeCloseTo((sample.readIops * sample.readAwaitMs + sample.writeIops * sample.writeAwaitMs) / 1000, 1);
  });

  test('KMP_BLOCKTIME host: its process loads Intel OpenMP and has no KMP_BLOCKTIME', () => {
    const [process] = demoInventory(hostWith('kmp-blocktime-unset')).processes;
    expect(process!.runtimes?.map((r) => r.id)).toContain('intel-openmp');
    expect(process!.env).not.toHaveProperty('KMP_BLOCKTIME');
    expect(process!.env).toHaveProperty('KMP_AFFINITY');
    for (const host of cleanHosts) {
      for (const p of demoInventory(host).processes) if (p.runtimes?.some((r) => r.id === 'intel-openmp')) expect(p.env.KMP_BLOCKTIME).toBe('1');
    }
  });

  test('OpenMP oversubscription: 4 workers × OMP_NUM_THREADS=8 on 8 vCPUs', () => {
    const inventory = demoInventory(hostWith('openmp-oversubscribed'));
    expect(inventory.host.onlineCpus).toBe(8);
    expect(inventory.processes).toHaveLength(4);
    for (const p of inventory.processes) {
      expect(p.env.OMP_NUM_THREADS).toBe('8');
      expect(p.runtimes?.map((r) => r.id)).toEqual(['pytorch', 'gnu-openmp']);
    }
  });

  test('AVX2 missing on one host only; every other host sees avx2 and fma', () => {
    for (const host of fleet) {
      const flags = cpuInventoryOf(demoInventory(host)).flags;
      const missing = host.condition === 'avx2-missing';
      expect(flags.includes('avx2')).toBe(!missing);
      expect(flags.includes('fma')).toBe(!missing);
    }
  });

  test('probes: nix-users is 4–8 ms from Oslo, 8–12 ms from Stockholm and 25–35 ms from Frankfurt', () => {
    for (const host of fleet) {
      for (const r of reportsBetween(host, EPOCH_MS - 10 * MIN, EPOCH_MS)) {
        const probe = r.probes.find((p) => p.name === 'nix-users')!;
        if (!probe.ok) continue;
        const [low, high] = ({ oslo: [4, 8], stockholm: [8, 12], frankfurt: [25, 35] } as const)[host.region];
        expect(probe.connectMs).toBeGreaterThanOrEqual(low);
        expect(probe.connectMs).toBeLessThanOrEqual(high);
      }
    }
  });

  test('LLM region: vLLM reports TTFT and ITL per model and its KV cache; llama.cpp its mean time per output token and no latency', () => {
    for (const host of fleet.filter((h) => h.region === 'stockholm')) {
      const report = demoReport(host, EPOCH_MS, 1);
      const [server] = report.servers!;
      if (host.service === 'llama-server') {
        expect(report.latency).toEqual([]);
        expect(server).toMatchObject({ name: 'llama', kvCachePct: null, preemptionsPerMin: null });
        expect(server!.tokenMeanMs).toBeGreaterThan(40);
        continue;
      }
      expect(report.latency.map((s) => [s.name, s.tags])).toEqual([
        [TTFT_NAME, { model_name: 'llama-3.1-8b-instruct', scrape: 'vllm' }],
        [ITL_NAME, { model_name: 'llama-3.1-8b-instruct', scrape: 'vllm' }],
      ]);
      expect(server).toMatchObject({ name: 'vllm', tokenMeanMs: null });
      expect(server!.preemptionsPerMin! > 0).toBe(host.condition === 'kv-pressure-episodes');
    }
  });

  test('KV-pressure episodes: four a day of 30–45 minutes, in which the cache is at ~98 %, tens preempted a minute, and TTFT and ITL p99 rise', () => {
    const host = hostWith('kv-pressure-episodes');
    const episodes = kvEpisodes(host, EPOCH_MS, EPOCH_MS + 24 * HOUR);
    expect(episodes.length).toBeGreaterThanOrEqual(4);
    expect(episodes.length).toBeLessThanOrEqual(5);
    for (const e of episodes) expect((e.endMs - e.startMs) / MIN).toBeGreaterThanOrEqual(30);
    const { startMs, endMs } = episodes.find((e) => e.startMs > EPOCH_MS + HOUR)!;
    const inside = reportsBetween(host, startMs + 10 * MIN, endMs - 10 * MIN);
    const before = reportsBetween(host, startMs - 70 * MIN, startMs - 10 * MIN);
    const servers = (reports: Report[]) => reports.map((r) => r.servers![0]!);
    expect(Math.min(...servers(inside).map((s) => s.kvCachePct!))).toBeGreaterThan(96);
    expect(Math.min(...servers(inside).map((s) => s.preemptionsPerMin!))).toBeGreaterThan(20);
    expect(Math.max(...servers(before).map((s) => s.kvCachePct!))).toBeLessThan(90);
    expect(Math.max(...servers(before).map((s) => s.preemptionsPerMin!))).toBeLessThan(10);
    const p99 = (reports: Report[], name: string) => {
      const sketch = new LatencySketch();
      for (const r of reports) for (const s of r.latency.filter((l) => l.name === name)) sketch.merge(s.sketch);
      return sketch.quantile(0.99)!;
    };
    for (const name of [TTFT_NAME, ITL_NAME]) expect(p99(inside, name)).toBeGreaterThan(2 * p99(before, name));
  });

  test('the stopped agent reports up to 20 minutes before the first start, and the spool counter rises in every 5 minutes', () => {
    expect(reportsUntilMs(hostWith('agent-stopped'))).toBe(EPOCH_MS - 20 * MIN);
    expect(reportsBetween(hostWith('agent-stopped'), EPOCH_MS - 10 * MIN, EPOCH_MS)).toEqual([]);
    for (const w of fiveMinuteWindows(hostWith('spool-dropping'), EPOCH_MS - HOUR, 2)) expect(w.droppedReports).toBeGreaterThan(0);
    for (const host of cleanHosts) expect(demoReport(host, EPOCH_MS, 1).agent.droppedReports).toBe(0);
  });
});

describe('the findings rules, run on the generated reports', { timeout: 60_000 }, () => {
  const expected = new Map<string, string[]>([
    ...fleet.flatMap((h) => (h.condition ? [[h.hostname, [...CONDITIONS[h.condition].shows].sort()] as [string, string[]]] : [])),
    ...Object.entries(REGION_SHOWS).flatMap(([region, shows]) => (shows.length ? [[`region:${region}`, [...shows].sort()] as [string, string[]]] : [])),
  ]);

  for (const [label, nowMs] of [
    ['at the first start', EPOCH_MS],
    ['at 04:00 Oslo time, the quietest hour', Date.UTC(2026, 11, 2, 3, 0)],
    ['at 16:00 Oslo time, the busiest hour', Date.UTC(2026, 11, 2, 15, 0)],
    ['three days on', EPOCH_MS + 3 * 24 * HOUR + 17 * MIN],
  ] as const) {
    test(`raise exactly the planted findings ${label}, and none on the clean hosts`, async () => {
      expect(await judgeFleet(fleet, nowMs)).toEqual(expected);
    });
  }
});
