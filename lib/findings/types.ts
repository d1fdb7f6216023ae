import type { Inventory } from '../protocol';
import type { FindingCategory, FindingEvidence, Severity } from '../protocol/findings';
import type { HostLatencyFacts } from './latency/facts';

export interface WindowStat {
  avg: number;
  max: number;
}

export interface DiskWindow {
  device: string;
  queueDepth: WindowStat;
  readAwaitMs: WindowStat;
  writeAwaitMs: WindowStat;
  utilPct: WindowStat;
  iops: number;
}

export interface CgroupWindow {
  path: string;
  quotaCores: number | null;
  usageCores: number;
  throttledPct: WindowStat;
  throttledMsPerS: number;
  /** Throttled share of periods in the window's first and second half: "rising" compares them. */
  throttledPctFirstHalf: number | null;
  throttledPctSecondHalf: number | null;
}

export interface ProcessWindow {
  name: string;
  pid: number;
  threadsMax: number;
  cpuCores: number;
}

/** A scraped model server (the agent's --scrape) over the window: its LLM engine's KV cache and preemptions. */
export interface ServerWindow {
  name: string;
  /** Its successful scrapes in the window. */
  samples: number;
  /** Of those, how many carried a preemption rate, and how many a rate above zero. */
  preemptionSamples: number;
  preemptingSamples: number;
  preemptionsPerMin: WindowStat | null;
  kvCachePct: WindowStat | null;
}

/** What a host's raw samples say over the evaluation window (the newest few minutes). */
export interface HostWindow {
  fromMs: number;
  toMs: number;
  samples: number;
  /** The longest report interval in the window: an agent's first report covers only its warm-up, never the longest. */
  longestIntervalMs: number;
  stealPct: WindowStat | null;
  iowaitPct: WindowStat | null;
  /** user + nice + system + irq + softirq: the CPU the host itself used. */
  busyPct: WindowStat | null;
  psiCpuSomePct: WindowStat | null;
  psiIoSomePct: WindowStat | null;
  /** Average steal per vCPU, most stolen first; read only for hosts with some steal (see read-facts). */
  perCpuStealPct: { cpu: number; avg: number }[];
  disks: DiskWindow[];
  cgroups: CgroupWindow[];
  processes: ProcessWindow[];
  servers: ServerWindow[];
  /** Reports the agent's spool dropped within the window: the rises of its counter, which restarts from 0 when the spool's state is lost. */
  droppedReports: number;
}

export interface HostFacts {
  /** machineId: the /etc/machine-id (or the agent's own stand-in) it enrolled with; absent where unknown. */
  host: { id: number; hostname: string; region: string; labels: Record<string, string>; createdAtMs: number; machineId?: string | null };
  nowMs: number;
  /** When the host last reported (its newest sample, or its last request), null when it never did. */
  lastReportMs: number | null;
  /** Its newest report's own time (the agent's clock), where its charts end; before lastReportMs when reports came late. */
  lastSampleMs: number | null;
  /** The newest report's interval, known for a host with no samples in the window too; null when it never reported. */
  lastIntervalMs: number | null;
  /** The agent's configured interval (its --interval), what "missed reports" counts in; null for older agents. */
  reportEveryMs: number | null;
  /** The version its agent sent in its newest report (its own say, not checked); null before its first report. */
  agentVersion: string | null;
  inventory: { takenAtMs: number; data: Inventory } | null;
  /** null when the host sent no samples within the window. */
  window: HostWindow | null;
  /** Its latency series' p99 against their baselines (LatencyWatch); null until the engine has read enough. */
  latency?: HostLatencyFacts | null;
}

export interface ResidencyPolicy {
  id: number;
  name: string;
  /** Hosts whose labels include all of these. */
  selector: Record<string, string>;
  allowedRegions: string[];
}

/** What rules about one host need to know about the others. */
export interface FleetFacts {
  /** Per CPU model: how many hosts report it, and how many of those see avx512f. */
  cpuModels: Map<string, { hosts: number; withAvx512: number }>;
  residencyPolicies: ResidencyPolicy[];
  /** This server's version, which is the version of the agent it serves (one release builds both). */
  serverVersion: string;
}

export interface RegionProbeFacts {
  name: string;
  target: string;
  hosts: number;
  samples: number;
  medianConnectMs: number | null;
  medianResponseMs: number | null;
}

export interface RegionFacts {
  region: string;
  fromMs: number;
  toMs: number;
  probes: RegionProbeFacts[];
}

export interface Verdict {
  /** What on the host it is about: a process, a disk, a probe; '' for the host itself. */
  subject?: string;
  severity: Severity;
  message: string;
  remedy: string;
  /** The measured value the thresholds compare (kept as the occurrence's peak). */
  value?: number | null;
  evidence: FindingEvidence;
}

export interface RegionVerdict extends Verdict {
  region: string;
}

export interface ThresholdSpec {
  value: number;
  unit: string;
  description: string;
}

export type ThresholdSpecs = Record<string, ThresholdSpec>;
export type Thresholds<D extends ThresholdSpecs> = { [K in keyof D]: number };

export interface RuleContext {
  nowMs: number;
  fleet: FleetFacts;
  /** Whether this rule's finding for `subject` is open now: rules clear at a lower threshold than they raise. */
  isOpen(subject?: string): boolean;
}

interface RuleBase<D extends ThresholdSpecs> {
  id: string;
  title: string;
  category: FindingCategory;
  severities: readonly Severity[];
  defaults: D;
  /** How long a verdict must hold before its finding opens; 0 opens at once. */
  openAfterMs: number;
}

/**
 * `needs` says which inputs the rule judges: without them (a host that sent no samples lately, or no inventory
 * yet) the engine leaves the rule's findings as they are instead of resolving them for want of data.
 */
export interface HostRule<D extends ThresholdSpecs = ThresholdSpecs> extends RuleBase<D> {
  scope: 'host';
  needs: 'inventory' | 'window' | 'both' | 'latency' | 'none';
  evaluate(facts: HostFacts, thresholds: Thresholds<D>, ctx: RuleContext): Verdict[];
}

export interface RegionRule<D extends ThresholdSpecs = ThresholdSpecs> extends RuleBase<D> {
  scope: 'region';
  evaluate(regions: RegionFacts[], thresholds: Thresholds<D>, ctx: Omit<RuleContext, 'isOpen'> & { isOpen(region: string, subject?: string): boolean }): RegionVerdict[];
}

export type Rule = HostRule | RegionRule;

export function defineHostRule<const D extends ThresholdSpecs>(rule: Omit<HostRule<D>, 'scope'>): HostRule<D> {
  return { scope: 'host', ...rule };
}

export function defineRegionRule<const D extends ThresholdSpecs>(rule: Omit<RegionRule<D>, 'scope'>): RegionRule<D> {
  return { scope: 'region', ...rule };
}
