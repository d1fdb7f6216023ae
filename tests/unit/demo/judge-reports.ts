import { evaluateFindings } from '../../../lib/findings/engine/evaluate';
import { FINDINGS_WINDOW_MS, PROBE_WINDOW_MS, readFleetFacts } from '../../../lib/findings/read/read-facts';
import { FINDING_RULES } from '../../../lib/findings/registry';
import type { HostFacts, HostWindow, RegionFacts, WindowStat } from '../../../lib/findings/types';
import { DEMO_INTERVAL_MS, DEMO_REGIONS, reportsUntilMs, type DemoHost } from '../../../lib/demo/fleet';
import { demoInventory } from '../../../lib/demo/inventory';
import { DEMO_AGENT_VERSION, demoReport } from '../../../lib/demo/report';
import { isUnavailable, type Report } from '../../../lib/protocol';

/**
 * The demo's reports judged by the real rules without a database: what the findings engine's queries would read
 * (averages and peaks over its window, medians of probes per region), computed here from the generated reports.
 */
const stat = (values: readonly number[]): WindowStat | null =>
  values.length ? { avg: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) } : null;
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
}

/** The host's reports with ts in (fromMs, toMs], on its own report grid. */
export function reportsBetween(host: DemoHost, fromMs: number, toMs: number): Report[] {
  const until = Math.min(toMs, reportsUntilMs(host));
  const reports: Report[] = [];
  let ts = Math.floor((fromMs - host.phaseMs) / DEMO_INTERVAL_MS) * DEMO_INTERVAL_MS + host.phaseMs;
  if (ts <= fromMs) ts += DEMO_INTERVAL_MS;
  for (let seq = 0; ts <= until; ts += DEMO_INTERVAL_MS, seq++) reports.push(demoReport(host, ts, seq));
  return reports;
}

const byKey = <T>(items: readonly T[], key: (item: T) => string) => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

export function windowOf(reports: readonly Report[], fromMs: number, toMs: number): HostWindow | null {
  if (reports.length === 0) return null;
  const cpu = reports.flatMap((r) => (isUnavailable(r.cpu) ? [] : [r.cpu]));
  const pressure = reports.flatMap((r) => (isUnavailable(r.pressure) ? [] : [r.pressure]));
  const steal = stat(cpu.map((c) => c.total.stealPct));
  const perCpu = [...byKey(cpu.flatMap((c) => c.perCpu), (c) => String(c.cpu))].map(([cpuId, rows]) => ({ cpu: Number(cpuId), avg: mean(rows.map((r) => r.stealPct)) }));
  const disks = reports.flatMap((r) => (isUnavailable(r.disks) ? [] : r.disks));
  const cgroups = reports.flatMap((r) => (isUnavailable(r.cgroups) ? [] : r.cgroups.map((g) => ({ ...g, ts: r.ts }))));
  const mid = (fromMs + toMs) / 2;
  const dropped = reports.map((r) => r.agent.droppedReports);
  const psi = (pick: (p: (typeof pressure)[number]) => (typeof pressure)[number]['cpu']) =>
    stat(pressure.flatMap((p) => { const r = pick(p); return isUnavailable(r) ? [] : [r.some.avg10]; }));
  return {
    fromMs,
    toMs,
    samples: reports.length,
    longestIntervalMs: Math.max(...reports.map((r) => r.intervalMs)),
    stealPct: steal,
    iowaitPct: stat(cpu.map((c) => c.total.iowaitPct)),
    busyPct: stat(cpu.map((c) => c.total.userPct + c.total.nicePct + c.total.systemPct + c.total.irqPct + c.total.softirqPct)),
    psiCpuSomePct: psi((p) => p.cpu),
    psiIoSomePct: psi((p) => p.io),
    perCpuStealPct: (steal?.avg ?? 0) >= 1 ? perCpu.sort((a, b) => b.avg - a.avg || a.cpu - b.cpu) : [],
    disks: [...byKey(disks, (d) => d.device)].map(([device, rows]) => ({
      device,
      queueDepth: stat(rows.map((d) => d.queueDepth))!,
      readAwaitMs: stat(rows.map((d) => d.readAwaitMs))!,
      writeAwaitMs: stat(rows.map((d) => d.writeAwaitMs))!,
      utilPct: stat(rows.map((d) => d.utilPct))!,
      iops: mean(rows.map((d) => d.readIops + d.writeIops)),
    })),
    cgroups: [...byKey(cgroups, (g) => g.path)].map(([path, rows]) => {
      const first = rows.filter((g) => g.ts <= mid).map((g) => g.throttledPct);
      const second = rows.filter((g) => g.ts > mid).map((g) => g.throttledPct);
      return {
        path,
        quotaCores: rows.at(-1)!.quotaCores,
        usageCores: mean(rows.map((g) => g.usageCores)),
        throttledPct: stat(rows.map((g) => g.throttledPct))!,
        throttledMsPerS: mean(rows.map((g) => g.throttledMsPerS)),
        throttledPctFirstHalf: first.length ? mean(first) : null,
        throttledPctSecondHalf: second.length ? mean(second) : null,
      };
    }),
    processes: [...byKey(reports.flatMap((r) => r.processes), (p) => `${p.name}|${p.pid}`)].map(([, rows]) => ({
      name: rows[0]!.name,
      pid: rows[0]!.pid,
      threadsMax: Math.max(...rows.map((p) => p.threads)),
      cpuCores: mean(rows.map((p) => p.cpuCores)),
    })),
    servers: [...byKey(reports.flatMap((r) => (r.servers ?? []).filter((v) => v.ok)), (v) => v.name)]
      .filter(([, rows]) => rows.some((v) => v.preemptionsPerMin != null || v.kvCachePct != null))
      .map(([name, rows]) => {
        const preemptions = rows.flatMap((v) => (v.preemptionsPerMin == null ? [] : [v.preemptionsPerMin]));
        return {
          name,
          samples: rows.length,
          preemptionSamples: preemptions.length,
          preemptingSamples: preemptions.filter((p) => p > 0).length,
          preemptionsPerMin: stat(preemptions),
          kvCachePct: stat(rows.flatMap((v) => (v.kvCachePct == null ? [] : [v.kvCachePct]))),
        };
      }),
    droppedReports: dropped.slice(1).reduce((sum, d, i) => sum + (d >= dropped[i]! ? d - dropped[i]! : d), 0),
  };
}

function regionFacts(fleet: readonly DemoHost[], recent: Map<string, Report[]>, fromMs: number, toMs: number): RegionFacts[] {
  return DEMO_REGIONS.map((region) => {
    const hosts = fleet.filter((h) => h.region === region);
    const probes = hosts.flatMap((h) => recent.get(h.hostname)!.flatMap((r) => r.probes.filter((p) => p.ok).map((p) => ({ ...p, host: h.hostname }))));
    return {
      region,
      fromMs,
      toMs,
      probes: [...byKey(probes, (p) => p.name)].map(([name, rows]) => ({
        name,
        target: rows[0]!.target,
        hosts: new Set(rows.map((p) => p.host)).size,
        samples: rows.length,
        medianConnectMs: median(rows.flatMap((p) => (p.connectMs === null ? [] : [p.connectMs]))),
        medianResponseMs: median(rows.flatMap((p) => (p.responseMs === null ? [] : [p.responseMs]))),
      })),
    };
  });
}

/** Per hostname (and per region, keyed "region:<name>"), the rule ids the findings rules raise at `nowMs`. */
export async function judgeFleet(fleet: readonly DemoHost[], nowMs: number): Promise<Map<string, string[]>> {
  const windowFrom = nowMs - FINDINGS_WINDOW_MS;
  const probeFrom = nowMs - PROBE_WINDOW_MS;
  const recent = new Map(fleet.map((h) => [h.hostname, reportsBetween(h, probeFrom, nowMs)]));
  const hosts: HostFacts[] = fleet.map((host, i) => {
    const reports = recent.get(host.hostname)!;
    const inWindow = reports.filter((r) => r.ts > windowFrom);
    const lastTs = Math.min(nowMs, reportsUntilMs(host));
    return {
      host: { id: i + 1, hostname: host.hostname, region: host.region, labels: { demo: 'true' }, createdAtMs: host.epochMs - 3_600_000 },
      nowMs,
      lastReportMs: lastTs,
      lastSampleMs: lastTs,
      lastIntervalMs: DEMO_INTERVAL_MS,
      reportEveryMs: null,
      agentVersion: DEMO_AGENT_VERSION,
      inventory: { takenAtMs: host.epochMs - 3_600_000, data: demoInventory(host) },
      window: windowOf(inWindow, windowFrom, nowMs),
    };
  });
  const noQueries = { query: async () => [] } as unknown as Parameters<typeof readFleetFacts>[0];
  const fleetFacts = await readFleetFacts(noQueries, hosts);
  const { verdicts, failures } = evaluateFindings({
    nowMs,
    rules: FINDING_RULES,
    hosts,
    fleet: fleetFacts,
    regions: regionFacts(fleet, recent, probeFrom, nowMs),
    overrides: [],
    active: [],
  });
  if (failures.length) throw new Error(`rules failed: ${JSON.stringify(failures)}`);
  const raised = new Map<string, string[]>();
  for (const v of verdicts) {
    const key = v.hostId === null ? `region:${v.region}` : fleet[v.hostId - 1]!.hostname;
    raised.set(key, [...new Set([...(raised.get(key) ?? []), v.ruleId])].sort());
  }
  return raised;
}
