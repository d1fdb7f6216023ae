import type { AgentConfig } from '../config';
import { MAX_LATENCY_SERIES, createLatencyAggregator } from '../latency/aggregator';
import { startHttpIntake } from '../latency/http-intake';
import { startStatsdListener } from '../latency/statsd-server';
import type { Logger } from '../log';
import { createOtlpAccumulator, type OtlpAccumulator } from '../otlp/accumulator';
import { startOtlpIntake } from '../otlp/intake';
import type { IntervalCollectors, ReportSources } from '../report-builder';
import { createScraper } from '../scrape/scraper';
import { createCgroupCollector } from './cgroups/collector';
import { HOST_GROUP } from './cgroups/layout';
import { collectCgroupConfig } from './cgroups/limits';
import { createCpuCollector } from './cpu';
import { collectCpuInventory } from './cpuinfo';
import { collectDataPaths, collectDiskInventory, createDiskCollector } from './disks';
import { collectHostInventory } from './host';
import { createLogWatcher } from './log-warnings';
import { createPressureCollector } from './pressure';
import { createProbeCollector } from './probes';
import { collectProcessInventory, createProcessCollector, resolveWatchedProcesses } from './processes';
import { createRuntimeReader } from './runtimes';

export interface ReportSourcesHandle {
  sources: ReportSources;
  /** Stops the latency listeners. */
  close(): Promise<void>;
}

export interface SourcesOptions {
  /** Start the StatsD / HTTP timing listeners (not for --once). */
  listen: boolean;
}

type SourcesConfig = Pick<
  AgentConfig,
  'watchProcesses' | 'watchPids' | 'watchLogs' | 'dataPaths' | 'probes' | 'statsdAddr' | 'httpIntakeAddr' | 'intervalMs'
> &
  Partial<Pick<AgentConfig, 'scrape' | 'otlp'>>;

/** The one list of collectors: every source a report is built from. */
export function createIntervalCollectors(config: SourcesConfig): IntervalCollectors {
  return {
    cpu: createCpuCollector(),
    pressure: createPressureCollector(),
    disks: createDiskCollector(),
    cgroups: createCgroupCollector(),
    processes: createProcessCollector(),
    probes: createProbeCollector(config.probes, { intervalMs: config.intervalMs }),
  };
}

export async function createReportSources(
  config: SourcesConfig,
  log: Logger,
  options: SourcesOptions,
): Promise<ReportSourcesHandle> {
  const scrape = config.scrape?.targets.length ? config.scrape : undefined;
  const otlpConfig = options.listen && config.otlp?.addr ? config.otlp : undefined;
  // The report holds at most MAX_LATENCY_SERIES: the scraped and OTLP series' bounds come out of StatsD's share.
  const aggregator = createLatencyAggregator({ maxSeries: MAX_LATENCY_SERIES - (scrape?.maxSeries ?? 0) - (otlpConfig?.maxSeries ?? 0) });
  const closers: (() => Promise<void>)[] = [];
  let otlp: OtlpAccumulator | undefined;
  if (otlpConfig?.addr) {
    const accumulator = createOtlpAccumulator({ histograms: otlpConfig.histograms, maxSeries: otlpConfig.maxSeries, startedAtNs: Date.now() * 1e6 });
    try {
      const intake = await startOtlpIntake({ ...otlpConfig.addr, accumulator, log });
      closers.push(() => intake.close());
      otlp = accumulator;
      log.info('otlp metrics intake started', { host: otlpConfig.addr.host, port: intake.port });
    } catch (err) {
      log.error('could not start the otlp intake; latency over OpenTelemetry is off', {
        ...otlpConfig.addr,
        error: (err as Error).message,
      });
    }
  }
  if (options.listen && config.statsdAddr) {
    try {
      const listener = await startStatsdListener({
        ...config.statsdAddr,
        aggregator,
        onError: (err) => log.warn('statsd listener error', { error: err.message }),
      });
      closers.push(() => listener.close());
      log.info('statsd listener started', { host: config.statsdAddr.host, port: listener.port });
    } catch (err) {
      log.error('could not start the statsd listener; latency over StatsD is off', {
        ...config.statsdAddr,
        error: (err as Error).message,
      });
    }
  }
  if (options.listen && config.httpIntakeAddr) {
    try {
      const intake = await startHttpIntake({ ...config.httpIntakeAddr, aggregator });
      closers.push(() => intake.close());
      log.info('http timing intake started', { host: config.httpIntakeAddr.host, port: intake.port });
    } catch (err) {
      log.error('could not start the http timing intake; latency over HTTP is off', {
        ...config.httpIntakeAddr,
        error: (err as Error).message,
      });
    }
  }

  const logWatcher = createLogWatcher(config.watchLogs);
  const runtimeReader = createRuntimeReader();
  const sources: ReportSources = {
    resolveWatched: (procRoot) =>
      resolveWatchedProcesses(procRoot, { names: config.watchProcesses, pids: config.watchPids }),
    collectors: createIntervalCollectors(config),
    async collectHostInventory(ctx) {
      const [host, cpu, disks, dataPaths, cgroup] = await Promise.all([
        collectHostInventory(ctx),
        collectCpuInventory(ctx),
        collectDiskInventory(ctx),
        collectDataPaths(ctx.procRoot, ctx.sysRoot, config.dataPaths),
        collectCgroupConfig(ctx, HOST_GROUP),
      ]);
      return { host, cpu, disks, dataPaths, cgroup };
    },
    async collectProcessInventory(ctx) {
      // --watch-log files are not tied to one process, so every watched process carries their warnings.
      await logWatcher.poll();
      const warnings = logWatcher.warnings();
      return collectProcessInventory(ctx, new Map(ctx.watched.map((w) => [w.name, warnings])), runtimeReader);
    },
    malformedStatsdPackets: () => aggregator.malformedCount(),
    drainLatency: () => (otlp ? [...aggregator.drain(), ...otlp.drain()] : aggregator.drain()),
  };
  if (scrape) {
    const scraper = createScraper({
      targets: scrape.targets,
      histograms: scrape.histograms,
      maxSeries: scrape.maxSeries,
      limits: { timeoutMs: scrape.timeoutMs, maxBytes: scrape.maxBytes },
      log,
    });
    sources.scrape = { name: 'scrape', collect: (ctx) => scraper.collect(ctx.nowMs) };
    log.info('scraping model servers', { targets: scrape.targets.map((t) => `${t.name}=${t.url.href}`).join(' ') });
  }
  return {
    sources,
    async close() {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
