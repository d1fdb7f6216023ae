import { createHash } from 'node:crypto';
import type { z } from 'zod';
import {
  PROTOCOL_VERSION,
  cgroupSampleSchema,
  dataPathSchema,
  diskInventorySchema,
  diskSampleSchema,
  isUnavailable,
  latencySeriesSchema,
  perCpuSchema,
  probeSampleSchema,
  processInventorySchema,
  processSampleSchema,
  reportSchema,
  serverSampleSchema,
  type CgroupSample,
  type CpuSample,
  type DiskSample,
  type Inventory,
  type LatencySeries,
  type PressureSample,
  type ProbeSample,
  type ProcessInventory,
  type ProcessSample,
  type Report,
  type Unavailable,
} from '../lib/protocol';
import type { Collector, CollectorContext, WatchedProcess } from './collectors/types';
import type { Logger } from './log';
import type { ScrapeResult } from './scrape/scraper';

export interface IntervalCollectors {
  cpu: Collector<CpuSample | Unavailable>;
  pressure: Collector<PressureSample | Unavailable>;
  disks: Collector<DiskSample[] | Unavailable>;
  cgroups: Collector<CgroupSample[] | Unavailable>;
  processes: Collector<ProcessSample[]>;
  probes: Collector<ProbeSample[]>;
}

export type HostLevelInventory = Omit<Inventory, 'hash' | 'processes'>;

/** Everything a report is built from; the registry (collectors/index.ts) wires the real ones. */
export interface ReportSources {
  resolveWatched(procRoot: string): Promise<WatchedProcess[]>;
  collectors: IntervalCollectors;
  /** The slow-changing inventory, re-read every few intervals. */
  collectHostInventory(ctx: CollectorContext): Promise<HostLevelInventory>;
  /** Thread/env/cgroup config of watched processes, re-read every interval. */
  collectProcessInventory(ctx: CollectorContext): Promise<ProcessInventory[]>;
  drainLatency(): LatencySeries[];
  /** Malformed StatsD/HTTP timing lines since the last drain (read before drainLatency()). */
  malformedStatsdPackets(): number;
  /** The model servers' /metrics (--scrape): latency series and one sample per server; absent when none is set. */
  scrape?: Collector<ScrapeResult>;
}

export interface BuildInput {
  seq: number;
  /** End of the interval, epoch ms. */
  tsMs: number;
  /** Monotonic time of the end of the interval, ms; collectors compute rates from it. */
  monoMs: number;
  /** monoMs minus the monoMs of the previous warmUp() or build(): exactly the time the rates cover. */
  intervalMs: number;
  procRoot: string;
  sysRoot: string;
  droppedReports: number;
  spoolBytes: number;
}

export interface ReportBuilderOptions {
  sources: ReportSources;
  host: Report['host'];
  version: string;
  log: Logger;
  /** The configured interval, sent so the server judges silence by it; undefined for a one-off run. */
  reportEveryMs?: number;
  /** Host-level inventory is re-read every this many reports. */
  inventoryEvery?: number;
}

export interface WarmUpInput {
  /** Monotonic time of the baseline, ms: the first report's interval starts here. */
  monoMs: number;
  procRoot: string;
  sysRoot: string;
}

export interface ReportBuilder {
  /** Takes the rate collectors' baseline readings, so the first build() can already report rates. */
  warmUp(input: WarmUpInput): Promise<void>;
  build(input: BuildInput): Promise<Report>;
}

/** The collectors that turn counters into rates and so need a reading before the interval they report. */
const RATE_COLLECTORS = ['cpu', 'pressure', 'disks', 'cgroups', 'processes'] as const;

const SECTIONS = ['cpu', 'pressure', 'disks', 'cgroups'] as const;

export function createReportBuilder(opts: ReportBuilderOptions): ReportBuilder {
  const { sources, log } = opts;
  const inventoryEvery = opts.inventoryEvery ?? 6;
  let built = 0;
  let hostInventory: HostLevelInventory | undefined;
  let sentInventoryHash: string | undefined;

  async function section<T>(name: string, run: () => Promise<T>, fallback: (reason: string) => T): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const reason = `${name}: collector failed: ${(err as Error).message ?? String(err)}`.slice(0, 500);
      log.error('collector failed', { collector: name, error: reason });
      return fallback(reason);
    }
  }
  const unavailable = (reason: string): Unavailable => ({ unavailable: reason });

  const contextFor = async (input: WarmUpInput): Promise<CollectorContext> => {
    const watched = await section('watched processes', () => sources.resolveWatched(input.procRoot), () => []);
    return { procRoot: input.procRoot, sysRoot: input.sysRoot, nowMs: input.monoMs, watched };
  };

  return {
    async warmUp(input) {
      const ctx = await contextFor(input);
      const baseline = (name: (typeof RATE_COLLECTORS)[number]) => section<unknown>(name, () => sources.collectors[name].collect(ctx), () => undefined);
      const scrape = sources.scrape;
      await Promise.all([...RATE_COLLECTORS.map(baseline), scrape && section('scrape', () => scrape.collect(ctx), () => undefined)]);
    },

    async build(input) {
      const ctx = await contextFor(input);
      const { collectors } = sources;
      const refreshHost = hostInventory === undefined || built % inventoryEvery === 0;
      const scrape = sources.scrape;
      const [cpu, pressure, disks, cgroups, processes, probes, freshHostInventory, processInventory, scraped] = await Promise.all([
        section('cpu', () => collectors.cpu.collect(ctx), unavailable),
        section('pressure', () => collectors.pressure.collect(ctx), unavailable),
        section('disks', () => collectors.disks.collect(ctx), unavailable),
        section('cgroups', () => collectors.cgroups.collect(ctx), unavailable),
        section('processes', () => collectors.processes.collect(ctx), () => []),
        section('probes', () => collectors.probes.collect(ctx), () => []),
        refreshHost ? section('inventory', () => sources.collectHostInventory(ctx), () => undefined) : undefined,
        section('process inventory', () => sources.collectProcessInventory(ctx), () => []),
        scrape ? section('scrape', () => scrape.collect(ctx), () => undefined) : undefined,
      ]);
      built++;
      if (freshHostInventory) hostInventory = freshHostInventory;

      const malformedStatsdPackets = sources.malformedStatsdPackets();
      const latency = withScraped(sources.drainLatency(), scraped, log);
      const report: Report = {
        v: PROTOCOL_VERSION,
        seq: input.seq,
        ts: input.tsMs,
        intervalMs: input.intervalMs,
        host: opts.host,
        agent: {
          version: opts.version,
          droppedReports: input.droppedReports,
          spoolBytes: input.spoolBytes,
          malformedStatsdPackets,
          ...(opts.reportEveryMs === undefined ? {} : { reportEveryMs: opts.reportEveryMs }),
        },
        cpu,
        pressure,
        disks,
        cgroups,
        processes,
        latency,
        probes,
        ...(scraped ? { servers: scraped.servers } : {}),
      };
      if (hostInventory) {
        const inventory = withHash({ ...hostInventory, processes: processInventory });
        if (inventory.hash !== sentInventoryHash) {
          report.inventory = inventory;
          sentInventoryHash = inventory.hash;
        }
      }
      return validateReport(report, log);
    },
  };
}

/** StatsD/HTTP series, then the scraped ones; a scraped series whose name and tags StatsD already used is left out. */
function withScraped(own: LatencySeries[], scraped: ScrapeResult | undefined, log: Logger): LatencySeries[] {
  if (!scraped || scraped.latency.length === 0) return own;
  const keys = new Set(own.map((s) => `${s.name}\u0000${JSON.stringify(s.tags)}`));
  const room = MAX_REPORT_LATENCY_SERIES - own.length;
  const kept = scraped.latency.filter((s) => !keys.has(`${s.name}\u0000${JSON.stringify(s.tags)}`)).slice(0, Math.max(0, room));
  if (kept.length < scraped.latency.length) {
    log.warn('scraped latency series left out of the report: same name and tags as a StatsD series, or no room', { left: scraped.latency.length - kept.length });
  }
  return [...own, ...kept];
}

/** reportSchema's bound on the latency list. */
const MAX_REPORT_LATENCY_SERIES = 500;

export function withHash(inventory: Omit<Inventory, 'hash'>): Inventory {
  const hash = createHash('sha256').update(canonicalJson(inventory)).digest('hex');
  return { hash, ...inventory };
}

/** JSON with object keys sorted at every level, so equal data always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Item schemas of the report's lists: an invalid item is dropped alone, the rest of its list stays. */
const REPORT_LISTS = {
  disks: diskSampleSchema,
  cgroups: cgroupSampleSchema,
  processes: processSampleSchema,
  latency: latencySeriesSchema,
  probes: probeSampleSchema,
  servers: serverSampleSchema,
} as const;
const INVENTORY_LISTS = { disks: diskInventorySchema, dataPaths: dataPathSchema, processes: processInventorySchema } as const;

/**
 * A report the server would reject is a bug: log it loudly, drop each invalid list item (one disk, one process),
 * replace each other offending section with the reason (or an empty list), and still send the rest.
 * Throws only if the report is still invalid after that.
 */
export function validateReport(report: Report, log: Logger): Report {
  const first = reportSchema.safeParse(report);
  if (first.success) return first.data;
  const bug = (where: string, message: string) =>
    log.error('BUG: collector produced an invalid report section; replacing it', { seq: report.seq, path: where, error: message });

  const dropInvalidItems = <T>(list: T[], schema: z.ZodType, where: string): T[] =>
    list.filter((item, i) => {
      const parsed = schema.safeParse(item);
      if (!parsed.success) for (const issue of parsed.error.issues) bug([where, i, ...issue.path].join('.'), issue.message);
      return parsed.success;
    });
  const repaired: Record<string, unknown> = { ...report };
  for (const [key, schema] of Object.entries(REPORT_LISTS)) {
    const list = repaired[key];
    if (Array.isArray(list)) repaired[key] = dropInvalidItems(list, schema, key);
  }
  if (!isUnavailable(report.cpu) && Array.isArray(report.cpu.perCpu)) repaired.cpu = { ...report.cpu, perCpu: dropInvalidItems(report.cpu.perCpu, perCpuSchema, 'cpu.perCpu') };
  let inventory: Record<string, unknown> | undefined = report.inventory ? { ...report.inventory } : undefined;
  if (inventory) {
    for (const [key, schema] of Object.entries(INVENTORY_LISTS)) {
      const list = inventory[key];
      if (Array.isArray(list)) inventory[key] = dropInvalidItems(list, schema, `inventory.${key}`);
    }
  }
  repaired.inventory = inventory;
  const second = reportSchema.safeParse(repaired);
  if (second.success) return second.data;

  for (const issue of second.error.issues) {
    const [top, sub] = issue.path.map(String);
    const where = issue.path.join('.');
    bug(where, issue.message);
    const reason = `invalid data from the agent at ${where}: ${issue.message}`.slice(0, 500);
    if (top === 'inventory' && inventory) {
      if (sub === 'processes' || sub === 'dataPaths') inventory[sub] = [];
      else if (sub === 'cpu' || sub === 'disks' || sub === 'cgroup') inventory[sub] = { unavailable: reason };
      else inventory = undefined;
    } else if (top && (SECTIONS as readonly string[]).includes(top)) {
      repaired[top] = { unavailable: reason };
    } else if (top === 'processes' || top === 'latency' || top === 'probes' || top === 'servers') {
      repaired[top] = [];
    }
  }
  repaired.inventory = inventory;
  return reportSchema.parse(repaired);
}
