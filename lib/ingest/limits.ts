import { serverEnvironment, type ServerEnvironment } from '../server/environment';
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

export function ingestLimitsFromEnv(environment: ServerEnvironment = serverEnvironment()): IngestLimits {
  return {
    maxCompressedBytes: 1024 * 1024,
    maxDecompressedBytes: 16 * 1024 * 1024,
    maxFutureMs: 5 * MINUTE_MS,
    maxAgeMs: environment.retentionDays.raw * DAY_MS,
    rate: environment.ingestRate,
  };
}
