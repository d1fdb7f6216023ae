import type { SketchWire } from '../protocol';
import type { Severity } from '../protocol/findings';

/** What the readers (lib/alerts/read) hand the pure evaluation: every input of one cycle, read in bulk. */
export interface HostInfo {
  id: number;
  hostname: string;
  region: string;
  labels: Record<string, string>;
}

export interface SeriesWindowRow {
  hostId: number;
  /** The device, CPU, process, cgroup or probe; null for host-wide series. */
  key: string | null;
  avg: number | null;
  max: number | null;
}

export interface SeriesWindow {
  rows: SeriesWindowRow[];
  /** Hosts that sent samples of the series' table within the window: only their alerts may clear. */
  coveredHosts: ReadonlySet<number>;
}

export interface HostHeard {
  /** When the server last received a report from the host; null if it never did. */
  lastHeardMs: number | null;
  /** The agent's configured interval, else the longest of its reports' over the 5 minutes up to its newest; null when it never reported. */
  intervalMs: number | null;
}

export interface LatencyBurnRow {
  region: string;
  service: string;
  longTotal: number;
  longBad: number;
  shortTotal: number;
  shortBad: number;
}

export interface LatencyHistogramRow {
  region: string;
  service: string;
  wire: SketchWire;
}

export interface OpenFinding {
  id: number;
  ruleId: string;
  hostId: number | null;
  region: string;
  subject: string;
  severity: Severity;
  message: string;
  remedy: string;
}

export interface AlertInputs {
  nowMs: number;
  hosts: ReadonlyMap<number, HostInfo>;
  /** By seriesRequestKey(series, windowMs). */
  series: ReadonlyMap<string, SeriesWindow>;
  /** By seriesRequestKey(series, baselineMs), then instanceKey(hostId, key): the median. */
  baselines: ReadonlyMap<string, ReadonlyMap<string, number>>;
  heard: ReadonlyMap<number, HostHeard>;
  /** By burnRequestKey(latencyMs, windowMs, shortWindowMs). */
  latencyBurn: ReadonlyMap<string, LatencyBurnRow[]>;
  /** By windowMs. */
  latencyHistograms: ReadonlyMap<number, LatencyHistogramRow[]>;
  /** Absent on targeted cycles: finding rules are judged on full cycles only. */
  findings?: OpenFinding[];
  /** The hosts a targeted cycle judges (after their ingest); undefined on a full cycle. */
  targetHosts?: ReadonlySet<number>;
}

export const seriesRequestKey = (series: string, windowMs: number) => `${series}|${windowMs}`;
export const burnRequestKey = (latencyMs: number, windowMs: number, shortWindowMs: number) => `${latencyMs}|${windowMs}|${shortWindowMs}`;
export const instanceKey = (hostId: number, key: string | null) => `${hostId}|${key ?? ''}`;
