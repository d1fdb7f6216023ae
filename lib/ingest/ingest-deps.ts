import 'server-only';
import { authenticateHost } from '../auth/authenticate-host';
import type { Database } from '../db';
import { IngestMetrics } from './ingest-metrics';
import { UnavailableBreaker, type IngestDeps } from './ingest-request';
import { ingestLimits } from './limits';
import { HostRateLimiter } from './rate-limit';
import { EmbeddedWriter } from './write/embedded-writer';
import { GroupCommitWriter } from './write/group-commit/group-commit-writer';
import type { ReportWriter } from './write/writer';

function createWriter(db: Database, metrics?: IngestMetrics): ReportWriter {
  const pool = db.ingestPool ?? db.pool;
  return pool ? new GroupCommitWriter(pool, { onFlush: (flush) => metrics?.observeFlush(flush) }) : new EmbeddedWriter(db.sql);
}

/**
 * Everything ingest needs for one database: the writer (group commit on a server), rate limits (the defaults unless
 * given the server's), the breaker, and metrics (on a registry of their own unless given the process's).
 */
export function createIngestDeps(db: Database, overrides: Partial<IngestDeps> = {}): IngestDeps {
  const limits = overrides.limits ?? ingestLimits();
  const metrics = overrides.metrics ?? new IngestMetrics();
  return {
    authenticate: (token) => authenticateHost(db, token),
    writer: overrides.writer ?? createWriter(db, metrics),
    rateLimiter: new HostRateLimiter(limits.rate),
    limits,
    nowMs: Date.now,
    breaker: new UnavailableBreaker(),
    metrics,
    ...overrides,
  };
}
