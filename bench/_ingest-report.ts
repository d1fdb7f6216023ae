import { LatencySketch } from '../lib/sketch';
import type { Report, SketchWire } from '../lib/protocol';

/** Deterministic pseudo-random numbers, so a benchmark run and a test see the same reports. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function breakdown(random: () => number) {
  const steal = round(random() * 4);
  const iowait = round(random() * 3);
  const user = round(20 + random() * 40);
  const system = round(5 + random() * 10);
  const rest = round(random() * 0.5);
  return {
    userPct: user,
    nicePct: 0,
    systemPct: system,
    iowaitPct: iowait,
    irqPct: rest,
    softirqPct: rest,
    stealPct: steal,
    idlePct: round(Math.max(0, 100 - user - system - iowait - steal - 2 * rest)),
  };
}

/** ~40 buckets of a log-normal-ish request latency around 30 ms. */
function latencySketch(random: () => number, medianMs: number): SketchWire {
  const sketch = new LatencySketch();
  for (let i = 0; i < 400; i++) sketch.add(medianMs * Math.exp((random() - 0.5) * 0.55 + (random() < 0.02 ? 0.15 : 0)));
  return sketch.toWire();
}

/**
 * A realistic report as the agent sends it every 10 s: CPU breakdown and 8 per-CPU rows, PSI, 4 disks, one cgroup,
 * 2 watched processes and 3 latency histograms.
 */
export function realisticReport(seq: number, tsMs: number, seed = seq + 1): Report {
  const random = seededRandom(seed);
  const disks = ['vda', 'vdb', 'nvme0n1', 'nvme1n1'].map((device) => ({
    device,
    readIops: round(random() * 300),
    writeIops: round(random() * 200),
    readBytesPerS: Math.round(random() * 5e7),
    writeBytesPerS: Math.round(random() * 3e7),
    readAwaitMs: round(random() * 2, 3),
    writeAwaitMs: round(random() * 4, 3),
    queueDepth: round(random() * 2, 3),
    inFlight: Math.floor(random() * 4),
    utilPct: round(random() * 60),
  }));
  const stall = () => ({ avg10: round(random() * 5), avg60: round(random() * 4), avg300: round(random() * 3), stallPct: round(random() * 5) });
  return {
    v: 1,
    seq,
    ts: tsMs,
    intervalMs: 10_000,
    host: { hostname: 'bench-host', machineId: null },
    agent: { version: '0.1.0', droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 },
    cpu: {
      total: breakdown(random),
      perCpu: Array.from({ length: 8 }, (_, cpu) => ({ cpu, ...breakdown(random) })),
      onlineCpus: 8,
      contextSwitchesPerS: round(random() * 20_000),
      load1: round(random() * 8),
      load5: round(random() * 8),
      load15: round(random() * 8),
      procsRunning: 1 + Math.floor(random() * 8),
      procsBlocked: Math.floor(random() * 2),
    },
    pressure: { cpu: { some: stall(), full: stall() }, io: { some: stall(), full: stall() }, memory: { some: stall(), full: stall() } },
    disks,
    cgroups: [
      {
        path: '/system.slice/inference.service',
        version: 2,
        quotaCores: 6,
        cpusetCpus: '0-7',
        effectiveCpus: 6,
        usageCores: round(random() * 6),
        throttledPeriodsPerS: round(random() * 10),
        throttledPct: round(random() * 10),
        throttledMsPerS: round(random() * 50),
      },
    ],
    processes: [
      { name: 'triton', pid: 4242, threads: 48, cpuCores: round(random() * 4), rssBytes: 4_200_000_000, voluntaryCtxSwitchesPerS: round(random() * 900), nonvoluntaryCtxSwitchesPerS: round(random() * 90) },
      { name: 'tokenizer', pid: 4343, threads: 8, cpuCores: round(random()), rssBytes: 380_000_000, voluntaryCtxSwitchesPerS: round(random() * 300), nonvoluntaryCtxSwitchesPerS: round(random() * 30) },
    ],
    latency: [
      { name: 'inference.request', tags: { model: 'llama-8b' }, sketch: latencySketch(random, 30) },
      { name: 'inference.queue', tags: { model: 'llama-8b' }, sketch: latencySketch(random, 4) },
      { name: 'tokenizer.encode', tags: {}, sketch: latencySketch(random, 0.8) },
    ],
    probes: [],
  };
}
