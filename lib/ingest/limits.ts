import { retentionFromEnv } from '../series/retention-config';
import { DAY_MS, MINUTE_MS } from '../protocol/time';

export interface IngestLimits {
  maxCompressedBytes: number;
  maxDecompressedBytes: number;
  maxFutureMs: number;
  /** Reports older than raw retention would land in a partition retention is about to drop. */
  maxAgeMs: number;
  rate: RateLimits;
}

/**
 * An agent sends one request per interval (10 s by default) and, after an outage, its backlog in batches. The
 * buckets allow 10× the normal pace with bursts, and drain a backlog at 1,000 reports per minute.
 */
export interface RateLimits {
  requestsPerS: number;
  requestBurst: number;
  reportsPerMin: number;
  reportBurst: number;
}

export function ingestLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): IngestLimits {
  const number = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    maxCompressedBytes: 1024 * 1024,
    maxDecompressedBytes: 16 * 1024 * 1024,
    maxFutureMs: 5 * MINUTE_MS,
    maxAgeMs: retentionFromEnv(env).raw * DAY_MS,
    rate: {
      requestsPerS: number('INFERWATCH_INGEST_REQUESTS_PER_S', 1),
      requestBurst: number('INFERWATCH_INGEST_REQUEST_BURST', 20),
      reportsPerMin: number('INFERWATCH_INGEST_REPORTS_PER_MIN', 1000),
      reportBurst: number('INFERWATCH_INGEST_REPORT_BURST', 1000),
    },
  };
}
