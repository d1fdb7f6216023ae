import { gzipSync } from 'node:zlib';
import type { Database } from '../../lib/db/open';
import { ingestLimits } from '../../lib/ingest/limits';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { GroupCommitWriter } from '../../lib/ingest/write/group-commit/group-commit-writer';
import type { Report } from '../../lib/protocol';

/**
 * Sends reports through the real ingest path (authentication, validation, the writer), as an agent would, without
 * per-host pacing: tests send a host's history in a burst that a real agent spreads over minutes.
 */
export function ingestClient(db: Database) {
  const limits = ingestLimits();
  const deps: IngestDeps = createIngestDeps(db, {
    limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } },
  });
  return {
    deps,
    async send(token: string, reports: Report[]): Promise<void> {
      for (let i = 0; i < reports.length; i += 500) {
        const body = gzipSync(JSON.stringify({ reports: reports.slice(i, i + 500) }));
        const out = await ingestRequest(
          { authorization: `Bearer ${token}`, contentType: 'application/json', contentEncoding: 'gzip', body },
          deps,
        );
        if (out.status !== 200) throw new Error(`ingest answered ${out.status}: ${JSON.stringify(out.body)}`);
      }
    },
    /** Writes the hosts' progress (last seen, newest report) now instead of a few seconds later. */
    async settle(): Promise<void> {
      if (deps.writer instanceof GroupCommitWriter) await deps.writer.writeHostProgress();
    },
    close: () => deps.writer.close(),
  };
}

/** One report every `intervalMs` ending at `endMs`, each shaped by `shape(i, ts)`. */
export function reportSeries(count: number, endMs: number, intervalMs: number, shape: (i: number, ts: number) => Report): Report[] {
  return Array.from({ length: count }, (_, i) => shape(i, endMs - (count - 1 - i) * intervalMs));
}
