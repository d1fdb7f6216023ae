import { DAY_MS, MAX_REPORT_FUTURE_MS } from '../protocol/time';
import { DEFAULT_RETENTION_DAYS } from '../series/retention-config';
import { DEFAULT_INGEST_RATE, type RateLimits } from './rate-limit';

export interface IngestLimits {
  maxCompressedBytes: number;
  maxDecompressedBytes: number;
  maxFutureMs: number;
  /** Reports older than raw retention would land in a partition retention is about to drop. */
  maxAgeMs: number;
  rate: RateLimits;
}

/** What the server's configuration decides of ingest's limits (INFERWATCH_RETENTION_RAW_DAYS, INFERWATCH_INGEST_*). */
export interface IngestSettings {
  rawRetentionDays: number;
  rate: RateLimits;
}

export function ingestLimits(settings: IngestSettings = { rawRetentionDays: DEFAULT_RETENTION_DAYS.raw, rate: DEFAULT_INGEST_RATE }): IngestLimits {
  return {
    maxCompressedBytes: 1024 * 1024,
    maxDecompressedBytes: 16 * 1024 * 1024,
    maxFutureMs: MAX_REPORT_FUTURE_MS,
    maxAgeMs: settings.rawRetentionDays * DAY_MS,
    rate: settings.rate,
  };
}
