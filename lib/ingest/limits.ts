import { serverEnvironment, type ServerEnvironment } from '../server/environment';
import { DAY_MS, MAX_REPORT_FUTURE_MS } from '../protocol/time';
import type { RateLimits } from './rate-limit';

export interface IngestLimits {
  maxCompressedBytes: number;
  maxDecompressedBytes: number;
  maxFutureMs: number;
  /** Reports older than raw retention would land in a partition retention is about to drop. */
  maxAgeMs: number;
  rate: RateLimits;
}

export function ingestLimitsFromEnv(environment: ServerEnvironment = serverEnvironment()): IngestLimits {
  return {
    maxCompressedBytes: 1024 * 1024,
    maxDecompressedBytes: 16 * 1024 * 1024,
    maxFutureMs: MAX_REPORT_FUTURE_MS,
    maxAgeMs: environment.retentionDays.raw * DAY_MS,
    rate: environment.ingestRate,
  };
}
