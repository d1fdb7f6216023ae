import type { CgroupSample, CpuBreakdown, CpuSample, DiskSample, PressureSample, ProcessSample } from '../protocol';
import { stealWeight, type HostMoment } from './behaviour';
import type { DemoHost } from './fleet';
import { demoDisks } from './inventory';
import { channel, clamp, round, smooth, unit } from './noise';
import type { DemoService } from './services';

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function breakdown(busyPct: number, stealPct: number, iowaitPct: number): CpuBreakdown {
  const busy = clamp(busyPct, 0, 100 - stealPct - iowaitPct);
  return {
    userPct: round(busy * 0.82),
    nicePct: 0,
    systemPct: round(busy * 0.13),
    iowaitPct: round(iowaitPct),
    irqPct: round(busy * 0.01),
    softirqPct: round(busy * 0.04),
    stealPct: round(stealPct),
    idlePct: round(Math.max(0, 100 - busy - stealPct - iowaitPct)),
  };
}

/** The host total is the mean of its vCPUs, as /proc/stat's "cpu" line is. */
export function cpuSample(host: DemoHost, tMs: number, m: HostMoment, earlier: readonly HostMoment[]): CpuSample {
  const tick = Math.floor(tMs / 10_000);
  const weights = Array.from({ length: host.vcpus }, (_, cpu) => 0.7 + 0.6 * unit(channel(host.seed, host.hostname, 'cpu', cpu), tick));
  const meanWeight = mean(weights);
  const perCpu = weights.map((w, cpu) => ({
    cpu,
    ...breakdown((m.busyPct * w) / meanWeight, clamp(m.stealPct * stealWeight(host, cpu), 0, 95), m.iowaitPct),
  }));
  const fields = ['userPct', 'nicePct', 'systemPct', 'iowaitPct', 'irqPct', 'softirqPct', 'stealPct', 'idlePct'] as const;
  const total = Object.fromEntries(fields.map((f) => [f, round(mean(perCpu.map((c) => c[f])))])) as CpuBreakdown;
  const runnable = (moment: HostMoment) => ((moment.busyPct + moment.iowaitPct) / 100) * host.vcpus * (1 + moment.psiCpuPct / 100);
  const load1 = runnable(m);
  return {
    total,
    perCpu,
    onlineCpus: host.vcpus,
    contextSwitchesPerS: Math.round(host.vcpus * (400 + 60 * m.busyPct)),
    load1: round(load1),
    load5: round(mean([load1, ...earlier.slice(0, 5).map(runnable)])),
    load15: round(mean([load1, ...earlier.map(runnable)])),
    procsRunning: Math.max(1, Math.round(load1)),
    procsBlocked: Math.round((m.iowaitPct / 100) * host.vcpus * 2),
  };
}

function stall(now: number, last60: readonly number[], last300: readonly number[], fullShare: number) {
  const some = { avg10: round(now), avg60: round(mean(last60)), avg300: round(mean(last300)), stallPct: round(now, 4) };
  const full = { avg10: round(now * fullShare), avg60: round(mean(last60) * fullShare), avg300: round(mean(last300) * fullShare), stallPct: round(now * fullShare, 4) };
  return { some, full };
}

/** PSI averages from the moments before: `earlier` holds the moments 20 s, 40 s, 1, 2, 3, 4 and 5 min back. */
export function pressureSample(m: HostMoment, earlier: readonly HostMoment[]): PressureSample {
  const cpu = [m, ...earlier].map((x) => x.psiCpuPct);
  const io = [m, ...earlier].map((x) => x.psiIoPct);
  const zero = { avg10: 0, avg60: 0, avg300: 0, stallPct: 0 };
  return {
    cpu: stall(cpu[0]!, cpu.slice(0, 3), [cpu[0]!, ...cpu.slice(3)], 0.1),
    io: stall(io[0]!, io.slice(0, 3), [io[0]!, ...io.slice(3)], 0.6),
    memory: { some: zero, full: zero },
  };
}

/** Per disk: awaits and queue as its class serves them; aqu-sz is IOPS × await (Little's law). */
export function diskSamples(host: DemoHost, tMs: number, m: HostMoment): DiskSample[] {
  const drift = (device: string, what: string, periodMs: number) => smooth(channel(host.seed, host.hostname, device, what), tMs, periodMs);
  return demoDisks(host).disks.map((disk) => {
    const d = disk.device;
    let readIops: number, writeIops: number, readAwaitMs: number, writeAwaitMs: number, serviceMs: number;
    if (disk.class === 'ssd') {
      readIops = 180 + 80 * m.load + 40 * drift(d, 'r', 60_000);
      writeIops = 35 + 15 * drift(d, 'w', 90_000);
      readAwaitMs = 30 + 25 * drift(d, 'ra', 120_000);
      writeAwaitMs = 40 + 25 * drift(d, 'wa', 120_000);
      serviceMs = 3.9;
    } else if (disk.class === 'virtual') {
      readIops = 1 + 2 * drift(d, 'r', 60_000);
      writeIops = 12 + 8 * drift(d, 'w', 90_000);
      readAwaitMs = 0.6 + 0.6 * drift(d, 'ra', 120_000);
      writeAwaitMs = 0.8 + 0.8 * drift(d, 'wa', 120_000);
      serviceMs = 0.5;
    } else {
      readIops = 3 + 0.15 * m.rps * (0.8 + 0.4 * drift(d, 'r', 60_000));
      writeIops = 25 + 30 * m.load * drift(d, 'w', 90_000);
      readAwaitMs = 0.12 + 0.1 * drift(d, 'ra', 120_000);
      writeAwaitMs = 0.03 + 0.04 * drift(d, 'wa', 120_000);
      serviceMs = 0.08;
    }
    const queueDepth = (readIops * readAwaitMs + writeIops * writeAwaitMs) / 1000;
    return {
      device: d,
      readIops: round(readIops, 1),
      writeIops: round(writeIops, 1),
      readBytesPerS: Math.round(readIops * 32_768),
      writeBytesPerS: Math.round(writeIops * 16_384),
      readAwaitMs: round(readAwaitMs, 3),
      writeAwaitMs: round(writeAwaitMs, 3),
      queueDepth: round(queueDepth, 3),
      inFlight: Math.round(queueDepth),
      utilPct: round(clamp(((readIops + writeIops) * serviceMs) / 10, 0, 100), 1),
    };
  });
}

/** The host's own group "/" and each service's group, with CFS throttling where a quota is set. */
export function cgroupSamples(host: DemoHost, m: HostMoment, services: readonly DemoService[]): CgroupSample[] {
  const root: CgroupSample = {
    path: '/',
    version: 2,
    quotaCores: null,
    cpusetCpus: null,
    effectiveCpus: host.vcpus,
    usageCores: round((m.busyPct / 100) * host.vcpus, 3),
    throttledPeriodsPerS: 0,
    throttledPct: 0,
    throttledMsPerS: 0,
  };
  const periodsPerS = 10;
  return [
    root,
    ...services.map(({ cgroup }): CgroupSample => ({
      path: cgroup.path,
      version: 2,
      quotaCores: cgroup.quotaCores,
      cpusetCpus: null,
      effectiveCpus: cgroup.quotaCores ?? host.vcpus,
      usageCores: round(m.serviceCores / services.length, 3),
      throttledPeriodsPerS: round((m.throttledPct / 100) * periodsPerS, 2),
      throttledPct: round(m.throttledPct),
      throttledMsPerS: round(m.throttledPct * 6, 1),
    })),
  ];
}

export function processSamples(host: DemoHost, tMs: number, m: HostMoment, services: readonly DemoService[]): ProcessSample[] {
  return services.flatMap((service) => service.processes.map(({ inventory, rssBytes }) => {
    const cores = m.serviceCores / services.length / service.processes.length;
    const stormThreads = host.condition === 'thread-storm' ? Math.round(20 * smooth(channel(host.seed, host.hostname, 'threads'), tMs, 60_000)) - 10 : 0;
    const oversubscribed = host.condition === 'openmp-oversubscribed';
    return {
      name: inventory.name,
      pid: inventory.pid,
      threads: inventory.threads + stormThreads,
      cpuCores: round(cores, 3),
      rssBytes: Math.round(rssBytes * (0.97 + 0.03 * smooth(channel(host.seed, host.hostname, 'rss', inventory.pid), tMs, 600_000))),
      voluntaryCtxSwitchesPerS: Math.round(200 + 600 * cores),
      nonvoluntaryCtxSwitchesPerS: Math.round((oversubscribed ? 900 : 30) * cores),
    };
  }));
}
