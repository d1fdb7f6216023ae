import type { Report } from '../protocol';
import { hostMoment } from './behaviour';
import { DEMO_INTERVAL_MS, type DemoHost } from './fleet';
import { demoInventory } from './inventory';
import { latencySeries, probeSamples, serverSamples } from './latency';
import { channel, smooth } from './noise';
import { cgroupSamples, cpuSample, diskSamples, pressureSample, processSamples } from './samples';
import { servicesOn } from './services';
import { APP_VERSION } from '../version';

// Build metadata, which version order ignores: a demo agent is as new as its server, so agent.outdated leaves it be.
export const DEMO_AGENT_VERSION = `${APP_VERSION}+demo`;

/** The moments PSI's avg60/avg300 and the load averages look back over. */
const EARLIER_MS = [20_000, 40_000, 60_000, 120_000, 180_000, 240_000, 300_000, 600_000];

// The spool-dropping host loses one report every 2.5 minutes, counted from an hour before the fleet's first start.
const DROP_EVERY_MS = 150_000;
const DROP_COUNT_FROM_MS = 3_600_000;
const SPOOL_MAX_BYTES = 1024 * 1024;

function agentStatus(host: DemoHost, tMs: number): Report['agent'] {
  if (host.condition !== 'spool-dropping') return { version: DEMO_AGENT_VERSION, droppedReports: 0, spoolBytes: 0, malformedStatsdPackets: 0 };
  return {
    version: DEMO_AGENT_VERSION,
    droppedReports: Math.max(0, Math.floor((tMs - (host.epochMs - DROP_COUNT_FROM_MS)) / DROP_EVERY_MS)),
    spoolBytes: Math.round(SPOOL_MAX_BYTES * (0.9 + 0.1 * smooth(channel(host.seed, host.hostname, 'spool'), tMs, 60_000))),
    malformedStatsdPackets: 0,
  };
}

/** One protocol-v1 report of a demo host for the interval ending at `tMs`: a pure function of its arguments. */
export function demoReport(host: DemoHost, tMs: number, seq: number, options: { inventory?: boolean } = {}): Report {
  const ts = Math.round(tMs);
  const moment = hostMoment(host, ts);
  const earlier = EARLIER_MS.map((ms) => hostMoment(host, ts - ms));
  const services = servicesOn(host);
  const report: Report = {
    v: 1,
    seq,
    ts,
    intervalMs: DEMO_INTERVAL_MS,
    host: { hostname: host.hostname, machineId: host.machineId },
    agent: agentStatus(host, ts),
    cpu: cpuSample(host, ts, moment, earlier.slice(2)),
    pressure: pressureSample(moment, earlier.slice(0, 7)),
    disks: diskSamples(host, ts, moment),
    cgroups: cgroupSamples(host, moment, services),
    processes: processSamples(host, ts, moment, services),
    latency: latencySeries(host, ts, DEMO_INTERVAL_MS, moment, services),
    probes: probeSamples(host, ts),
  };
  const servers = serverSamples(host, moment);
  if (servers) report.servers = servers;
  if (options.inventory) report.inventory = demoInventory(host);
  return report;
}
