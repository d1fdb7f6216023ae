import 'server-only';
import { authenticateHost } from '../auth/authenticate-host';
import { getDb, type Database } from '../db';
import { DatabaseUnavailableError, toErrorEnvelope } from '../errors';
import { processMetrics } from '../server/process-metrics';
import { EmbeddedWriter } from './embedded-writer';
import { IngestMetrics } from './ingest-metrics';
import { ingestRequest, UnavailableBreaker, type IngestDeps, type IngestInput, type IngestOutput } from './ingest-request';
import { ingestLimitsFromEnv } from './limits';
import { HostRateLimiter } from './rate-limit';
import { GroupCommitWriter } from './server-writer';
import type { ReportWriter } from './write-plan';

export function createWriter(db: Database, metrics?: IngestMetrics): ReportWriter {
  return db.pool ? new GroupCommitWriter(db.pool, { onFlush: (flush) => metrics?.observeFlush(flush) }) : new EmbeddedWriter(db.sql);
}

/**
 * Everything ingest needs for one database: the writer (group commit on a server), rate limits, the breaker, and
 * metrics (on a registry of their own unless given the process's).
 */
export function createIngestDeps(db: Database, overrides: Partial<IngestDeps> = {}): IngestDeps {
  const limits = overrides.limits ?? ingestLimitsFromEnv();
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

// One writer per process even when Next's bundle and the custom server each load this module.
const holder = globalThis as typeof globalThis & { __inferwatchIngest?: Promise<IngestDeps> };

function processDeps(): Promise<IngestDeps> {
  holder.__inferwatchIngest ??= getDb()
    .then((db) => createIngestDeps(db, { metrics: processMetrics().ingest }))
    .catch((err) => {
      holder.__inferwatchIngest = undefined;
      throw err;
    });
  return holder.__inferwatchIngest;
}

/** ingestRequest against this process's database (getDb()); 503 while it cannot be opened. */
export async function ingestWithProcessDatabase(input: IngestInput): Promise<IngestOutput> {
  const started = performance.now();
  let deps: IngestDeps;
  try {
    deps = await processDeps();
  } catch (err) {
    console.error(`ingest: database unavailable: ${(err as Error).message}`);
    const { status, body, headers } = toErrorEnvelope(new DatabaseUnavailableError());
    const output = { status, body, headers: headers ?? {} };
    // Counted with the time it waited for the database to open, not as an instant answer.
    processMetrics().ingest.observeRequest(output, (performance.now() - started) / 1000);
    return output;
  }
  return ingestRequest(input, deps);
}

/** Flushes what is queued and stops the writer; call before closeDb() on shutdown. */
export async function closeIngest(): Promise<void> {
  const pending = holder.__inferwatchIngest;
  holder.__inferwatchIngest = undefined;
  if (pending) await (await pending.catch(() => null))?.writer.close();
}
