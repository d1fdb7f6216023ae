import type { Report } from '../../lib/protocol';

const breakdown = (stealPct: number, iowaitPct: number) => ({
  userPct: 40,
  nicePct: 0,
  systemPct: 10,
  iowaitPct,
  irqPct: 0.5,
  softirqPct: 0.5,
  stealPct,
  idlePct: 49 - stealPct - iowaitPct,
});

/** A valid, realistic report; tests change the one field they are about. */
export function makeReport(overrides: Partial<Report> & { seq: number }): Report {
  const ts = overrides.ts ?? Date.now();
  return {
    v: 1,
    ts,
    intervalMs: 10_000,
    host: { hostname: 'test-host', machineId: null },
    agent: { version: '0.1.0', droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 },
    cpu: {
      total: breakdown(2.5, 1.5),
      perCpu: [
        { cpu: 0, ...breakdown(4, 1) },
        { cpu: 1, ...breakdown(1, 2) },
      ],
      onlineCpus: 2,
      contextSwitchesPerS: 1200,
      load1: 0.8,
      load5: 0.6,
      load15: 0.5,
      procsRunning: 2,
      procsBlocked: 0,
    },
    pressure: { unavailable: 'PSI not enabled on this kernel' },
    disks: [
      {
        device: 'vda',
        readIops: 12,
        writeIops: 30,
        readBytesPerS: 48_000,
        writeBytesPerS: 240_000,
        readAwaitMs: 0.8,
        writeAwaitMs: 2.1,
        queueDepth: 0.07,
        inFlight: 0,
        utilPct: 3.2,
      },
    ],
    cgroups: [],
    processes: [],
    latency: [],
    probes: [],
    ...overrides,
  };
}
