// Once a minute: the server's RSS from /proc, and from its own /metrics, scraped as Prometheus would, its V8 heap,
// event-loop delay (prom-client resets that histogram at each scrape, so each figure is that minute's) and ingest's
// own histograms so far (where a slow report's time went: the queue before a group-commit flush, or the flush).
import { rssMb, type CompiledServer } from './_compiled-server';
import { get, type LatencyRecord } from './_timed-http';

/** A Prometheus histogram's mean, and the bucket bound its 99th percentile is under. */
export interface HistogramFigures {
  count: number;
  meanMs: number;
  p99AtMostMs: number | null;
}

export interface MinuteSample {
  rssMb: number;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  externalMb: number | null;
  loopDelayP99Ms: number | null;
  loopDelayMaxMs: number | null;
  ingestRequest: HistogramFigures | null;
  ingestQueueWait: HistogramFigures | null;
  ingestFlush: HistogramFigures | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gauge(metrics: string | undefined, name: string, scale: number): number | null {
  const value = metrics && new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1];
  return value ? Math.round(Number(value) * scale * 10) / 10 : null;
}

/** Summed over the histogram's label sets (the flush's outcome). */
function histogram(metrics: string | undefined, name: string): HistogramFigures | null {
  if (!metrics) return null;
  const total = (suffix: string) =>
    [...metrics.matchAll(new RegExp(`^${name}_${suffix}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
  const count = total('count');
  if (count === 0) return null;
  const buckets = new Map<number, number>();
  for (const match of metrics.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm'))) {
    const le = match[1] === '+Inf' ? Infinity : Number(match[1]);
    buckets.set(le, (buckets.get(le) ?? 0) + Number(match[2]));
  }
  const bound = [...buckets].sort(([a], [b]) => a - b).find(([, cumulative]) => cumulative >= 0.99 * count)?.[0];
  return {
    count,
    meanMs: Math.round((total('sum') / count) * 10_000) / 10,
    p99AtMostMs: bound === undefined || !Number.isFinite(bound) ? null : bound * 1000,
  };
}

async function sampleServer(server: CompiledServer, token: string, scrapes: LatencyRecord): Promise<MinuteSample> {
  const rss = rssMb(server.pid);
  const metrics = (await scrapes.time('GET /metrics', () => get(`${server.url}/metrics`, { authorization: `Bearer ${token}` })))?.text;
  return {
    rssMb: rss,
    heapUsedMb: gauge(metrics, 'nodejs_heap_size_used_bytes', 1 / 1_048_576),
    heapTotalMb: gauge(metrics, 'nodejs_heap_size_total_bytes', 1 / 1_048_576),
    externalMb: gauge(metrics, 'nodejs_external_memory_bytes', 1 / 1_048_576),
    loopDelayP99Ms: gauge(metrics, 'nodejs_eventloop_lag_p99_seconds', 1000),
    loopDelayMaxMs: gauge(metrics, 'nodejs_eventloop_lag_max_seconds', 1000),
    ingestRequest: histogram(metrics, 'inferwatch_ingest_request_duration_seconds'),
    ingestQueueWait: histogram(metrics, 'inferwatch_ingest_queue_wait_seconds'),
    ingestFlush: histogram(metrics, 'inferwatch_ingest_flush_duration_seconds'),
  };
}

/** One sample at the end of each of `minutes` minutes from now; the last is taken as the load ends. */
export async function sampleEveryMinute(server: CompiledServer, token: string, minutes: number, scrapes: LatencyRecord, log: (message: string) => void): Promise<MinuteSample[]> {
  const started = performance.now();
  const samples: MinuteSample[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    await sleep(started + minute * 60_000 - performance.now());
    const sample = await sampleServer(server, token, scrapes);
    samples.push(sample);
    log(`minute ${minute}: server RSS ${sample.rssMb} MB, V8 heap used ${sample.heapUsedMb} of ${sample.heapTotalMb} MB, external ${sample.externalMb} MB, event-loop delay p99 ${sample.loopDelayP99Ms} ms`);
  }
  return samples;
}
