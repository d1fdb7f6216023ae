import type { Report } from '../../../../lib/protocol';

/** A minimal valid report; `padding` grows it (as a probe error string) for size tests. */
export function makeReport(seq: number, padding = 0): Report {
  return {
    v: 1,
    seq,
    ts: 1_700_000_000_000 + seq * 10_000,
    intervalMs: 10_000,
    host: { hostname: 'test-host', machineId: null },
    agent: { version: '0.0.0-test', droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 },
    cpu: { unavailable: 'test' },
    pressure: { unavailable: 'test' },
    disks: { unavailable: 'test' },
    cgroups: { unavailable: 'test' },
    processes: [],
    latency: [],
    probes:
      padding > 0
        ? [{ name: 'pad', target: 'http://x', ok: false, connectMs: null, responseMs: null, error: 'x'.repeat(Math.min(padding, 500)) }]
        : [],
  };
}
