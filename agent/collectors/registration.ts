import { isUnavailable, type Inventory, type LatencySeries, type Report } from '../../lib/protocol';
import type { AgentConfig } from '../config';
import type { Logger } from '../log';
import type { Collector, CollectorContext } from './types';

/**
 * When a collector runs. `rates` ones turn counters into rates: they also take a baseline reading at warm-up.
 * `inventory` ones describe what rarely changes and are re-read every few reports; their last values are kept.
 */
export type Cadence = 'rates' | 'interval' | 'inventory';

/** The report sections collectors fill; the builder adds the header, the agent's own status and the latency intakes. */
export type ReportSections = Pick<Report, 'cpu' | 'pressure' | 'disks' | 'cgroups' | 'processes' | 'probes' | 'servers'>;
export type InventoryParts = Omit<Inventory, 'hash'>;

/** One collector's part of a report; the builder merges the parts of all of them. */
export interface ReportPart {
  sections?: Partial<ReportSections>;
  /** Series from the model servers' /metrics, placed after the StatsD/HTTP/OTLP ones. */
  scrapedLatency?: LatencySeries[];
  inventory?: Partial<InventoryParts>;
}

export type CollectorConfig = Pick<
  AgentConfig,
  'watchProcesses' | 'watchPids' | 'watchLogs' | 'dataPaths' | 'probes' | 'intervalMs'
> &
  Partial<Pick<AgentConfig, 'scrape'>>;

export interface CollectorSetup {
  config: CollectorConfig;
  log: Logger;
}

/** Everything the agent knows about one collector, declared once in its module and listed in registry.ts. */
export interface CollectorDefinition<T> {
  /** Unique; sent in the report's agent.collectors and used in its logs. */
  name: string;
  /** The files and endpoints it reads, for the operator (agent/README.md, "What it reads"). */
  reads: readonly string[];
  cadence: Cadence;
  /** null when this configuration leaves it off (no --scrape target, say). */
  create(setup: CollectorSetup): Collector<T> | null;
  /** Its part of the report when collect() throws; without it the part keeps its last value (or stays out). */
  whenFailed?: (reason: string) => T;
  toReport(value: T): ReportPart;
}

/** One collection's result: its part of the report, and the reason it is not ok when it only says why not. */
export interface Collected {
  part: ReportPart;
  unavailable?: string;
}

/** A registered collector, started for this agent's configuration. */
export interface ActiveCollector {
  readonly name: string;
  readonly cadence: Cadence;
  collect(ctx: CollectorContext): Promise<Collected>;
  /** What the report says when collect() threw; undefined leaves the part as it was. */
  failed(reason: string): Collected | undefined;
}

export interface RegisteredCollector<T = unknown> {
  readonly name: string;
  readonly reads: readonly string[];
  readonly cadence: Cadence;
  start(setup: CollectorSetup): ActiveCollector | null;
  /** Runs `collector` under this registration: how tests hand in a fake source. */
  withSource(collector: Collector<T>): ActiveCollector;
}

export function defineCollector<T>(definition: CollectorDefinition<T>): RegisteredCollector<T> {
  const { name, reads, cadence, whenFailed, toReport } = definition;
  const collected = (value: T): Collected => ({
    part: toReport(value),
    ...(isUnavailable(value) ? { unavailable: value.unavailable } : {}),
  });
  const active = (collector: Collector<T>): ActiveCollector => ({
    name,
    cadence,
    collect: async (ctx) => collected(await collector.collect(ctx)),
    failed: (reason) => (whenFailed ? collected(whenFailed(reason)) : undefined),
  });
  return {
    name,
    reads,
    cadence,
    start(setup) {
      const collector = definition.create(setup);
      return collector && active(collector);
    },
    withSource: active,
  };
}
