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
  type Inventory,
  type LatencySeries,
  type Report,
} from '../lib/protocol';
import { systemClock, type Clock } from './clock';
import type { ActiveCollector, ReportPart, ReportSections } from './collectors/registration';
import { failureReason, runTimed } from './collectors/timed-run';
import type { CollectorContext, WatchedProcess } from './collectors/types';
import type { Logger } from './log';

/** Everything a report is built from; collectors/index.ts wires the real ones from the registry. */
export interface ReportSources {
  resolveWatched(procRoot: string): Promise<WatchedProcess[]>;
  /** The registered collectors this configuration runs, in the registry's order. */
  collectors: readonly ActiveCollector[];
  drainLatency(): LatencySeries[];
  /** Malformed StatsD/HTTP timing lines since the last drain (read before drainLatency()). */
  malformedStatsdPackets(): number;
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
  /** Inventory collectors re-read every this many reports. */
  inventoryEvery?: number;
  /** What each collector's duration is measured on (agent.collectors[].durationMs). */
  clock?: Pick<Clock, 'monoMs'>;
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

/** A report as the collectors assembled it, before validateReport: a section no collector filled is missing. */
type AssembledReport = Omit<Report, keyof ReportSections | 'inventory'> & Partial<ReportSections> & { inventory?: Partial<Inventory> };

export function createReportBuilder(opts: ReportBuilderOptions): ReportBuilder {
  const { sources, log } = opts;
  const monoMs = opts.clock?.monoMs ?? systemClock.monoMs;
  const inventoryEvery = opts.inventoryEvery ?? 6;
  const inventoryCollectors = sources.collectors.filter((c) => c.cadence === 'inventory');
  let built = 0;
  /** The last part of each inventory collector, kept between its re-reads. */
  const keptInventory = new Map<string, ReportPart>();
  let sentInventoryHash: string | undefined;

  const contextFor = async (input: WarmUpInput): Promise<CollectorContext> => {
    let watched: WatchedProcess[] = [];
    try {
      watched = await sources.resolveWatched(input.procRoot);
    } catch (err) {
      log.error('collector failed', { collector: 'watched processes', error: failureReason('watched processes', err) });
    }
    return { procRoot: input.procRoot, sysRoot: input.sysRoot, nowMs: input.monoMs, watched };
  };

  return {
    async warmUp(input) {
      const ctx = await contextFor(input);
      await Promise.all(sources.collectors.filter((c) => c.cadence === 'rates').map((c) => runTimed(c, ctx, monoMs, log)));
    },

    async build(input) {
      const ctx = await contextFor(input);
      const inventoryDue = keptInventory.size < inventoryCollectors.length || built % inventoryEvery === 0;
      const due = sources.collectors.filter((c) => c.cadence !== 'inventory' || inventoryDue);
      const runs = await Promise.all(due.map(async (c) => ({ collector: c, ...(await runTimed(c, ctx, monoMs, log)) })));
      built++;

      const parts: ReportPart[] = [];
      for (const { collector, collected } of runs) {
        if (!collected) continue;
        if (collector.cadence === 'inventory') keptInventory.set(collector.name, collected.part);
        else parts.push(collected.part);
      }
      const inventoryComplete = keptInventory.size === inventoryCollectors.length;
      const { sections, scrapedLatency, inventory } = merged([...parts, ...inventoryCollectors.flatMap((c) => keptInventory.get(c.name) ?? [])]);

      const malformedStatsdPackets = sources.malformedStatsdPackets();
      const report: AssembledReport = {
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
          collectors: runs.map(({ run }) => run),
        },
        ...sections,
        latency: withScraped(sources.drainLatency(), scrapedLatency, log),
      };
      if (inventoryComplete) {
        const hashed = withHash(inventory);
        if (hashed.hash !== sentInventoryHash) {
          report.inventory = hashed;
          sentInventoryHash = hashed.hash;
        }
      }
      return validateReport(report, log);
    },
  };
}

/** The collectors' parts as one: later parts win a section, scraped series add up. */
function merged(parts: readonly ReportPart[]): Required<ReportPart> {
  const whole: Required<ReportPart> = { sections: {}, scrapedLatency: [], inventory: {} };
  for (const part of parts) {
    Object.assign(whole.sections, part.sections);
    Object.assign(whole.inventory, part.inventory);
    whole.scrapedLatency.push(...(part.scrapedLatency ?? []));
  }
  return whole;
}

/** StatsD/HTTP series, then the scraped ones; a scraped series whose name and tags StatsD already used is left out. */
function withScraped(own: LatencySeries[], scraped: readonly LatencySeries[], log: Logger): LatencySeries[] {
  if (scraped.length === 0) return own;
  const keys = new Set(own.map((s) => `${s.name}\u0000${JSON.stringify(s.tags)}`));
  const room = MAX_REPORT_LATENCY_SERIES - own.length;
  const kept = scraped.filter((s) => !keys.has(`${s.name}\u0000${JSON.stringify(s.tags)}`)).slice(0, Math.max(0, room));
  if (kept.length < scraped.length) {
    log.warn('scraped latency series left out of the report: same name and tags as a StatsD series, or no room', { left: scraped.length - kept.length });
  }
  return [...own, ...kept];
}

/** reportSchema's bound on the latency list. */
const MAX_REPORT_LATENCY_SERIES = 500;

export function withHash<T extends Partial<Omit<Inventory, 'hash'>>>(inventory: T): T & { hash: string } {
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
/** The sections that may say `{ unavailable: reason }` instead of their data. */
const SECTIONS = ['cpu', 'pressure', 'disks', 'cgroups'] as const;

/**
 * A report the server would reject is a bug: log it loudly, drop each invalid list item (one disk, one process),
 * replace each other offending section with the reason (or an empty list), and still send the rest.
 * Throws only if the report is still invalid after that.
 */
export function validateReport(report: AssembledReport, log: Logger): Report {
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
  if (report.cpu && !isUnavailable(report.cpu) && Array.isArray(report.cpu.perCpu)) repaired.cpu = { ...report.cpu, perCpu: dropInvalidItems(report.cpu.perCpu, perCpuSchema, 'cpu.perCpu') };
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
    } else if (top === 'agent' && sub === 'collectors') {
      repaired.agent = { ...report.agent, collectors: undefined };
    }
  }
  repaired.inventory = inventory;
  return reportSchema.parse(repaired);
}
