import type { HourlyBaseline, LatencyP99 } from '../../protocol/findings';
import type { CauseGauge } from './method';

/** One gauge over the baseline and the current range (for a device or cgroup: one key of it). */
export interface GaugeObservation {
  gauge: CauseGauge;
  key: string | null;
  before: number | null;
  after: number | null;
  /** Its average per minute of the current range, by minute start (ms). */
  perMinute?: ReadonlyMap<number, number>;
  /** For steal: the vCPUs it concentrated on. */
  cpus?: readonly number[];
}

export interface InventoryObservation {
  atMs: number;
  /** What changed, as diffInventories says it. */
  changes: readonly string[];
}

export type RegionObservation =
  | { method: 'region-p99'; region: string; otherHosts: number; baseline: HourlyBaseline; current: LatencyP99 }
  | { method: 'host-count'; region: string; otherHosts: number; otherHostsRegressed: number };

/** One series' p99 on another host of the region, for the rule's region check. */
export interface PeerP99 {
  hostId: number;
  currentP99Ms: number | null;
  requests: number;
  baselineP99Ms: number | null;
  baselineHours: number;
}

/** What the findings engine knows about one latency series of a host (see LatencyWatch). */
export interface LatencySeriesFacts {
  name: string;
  /** The rolled minutes judged, [fromMs, toMs). */
  window: { fromMs: number; toMs: number };
  /** The median of the window's per-minute p99s; `requests` in the window. */
  current: { p99Ms: number | null; requests: number; minutes: number };
  /** The median of the hourly p99s of the 24 h before the window's hour; `hours` of its `ofHours` had requests. */
  baseline: { p99Ms: number | null; requests: number; hours: number; ofHours: number };
  baselineRange: { fromMs: number; toMs: number };
  /** Gauges and inventory changes over the same ranges, and p99 per minute: only for series that could be judged regressed. */
  perMinuteP99: ReadonlyMap<number, number>;
  observed: { gauges: GaugeObservation[]; inventory: InventoryObservation[] } | null;
  /** The same series on every host of the region, this one included (shared between their facts). */
  peers: readonly PeerP99[];
}

export interface HostLatencyFacts {
  series: LatencySeriesFacts[];
}
