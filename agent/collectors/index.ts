import type { AgentConfig } from '../config';
import { MAX_LATENCY_SERIES, createLatencyAggregator } from '../latency/aggregator';
import { startHttpIntake } from '../latency/http-intake';
import { startStatsdListener } from '../latency/statsd-server';
import type { Logger } from '../log';
import { createOtlpAccumulator, type OtlpAccumulator } from '../otlp/accumulator';
import { startOtlpIntake } from '../otlp/intake';
import type { ReportSources } from '../report-builder';
import { resolveWatchedProcesses } from './processes';
import type { CollectorConfig } from './registration';
import { COLLECTORS } from './registry';

export interface ReportSourcesHandle {
  sources: ReportSources;
  /** Stops the latency listeners. */
  close(): Promise<void>;
}

export interface SourcesOptions {
  /** Start the StatsD / HTTP timing listeners (not for --once). */
  listen: boolean;
}

type SourcesConfig = CollectorConfig & Pick<AgentConfig, 'statsdAddr' | 'httpIntakeAddr'> & Partial<Pick<AgentConfig, 'otlp'>>;

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

  const sources: ReportSources = {
    resolveWatched: (procRoot) =>
      resolveWatchedProcesses(procRoot, { names: config.watchProcesses, pids: config.watchPids }),
    collectors: COLLECTORS.flatMap((registered) => registered.start({ config, log }) ?? []),
    malformedStatsdPackets: () => aggregator.malformedCount(),
    drainLatency: () => (otlp ? [...aggregator.drain(), ...otlp.drain()] : aggregator.drain()),
  };
  return {
    sources,
    async close() {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
