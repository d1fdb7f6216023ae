import { Counter, Histogram, Registry } from 'prom-client';
import type { FlushOutcome } from './write/group-commit/group-commit-writer';

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const REPORTS_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000];

/**
 * What this process's ingest did, for GET /metrics: requests by answer, reports stored or duplicate, and where a
 * request's time went (the whole request; its wait in the group-commit queue; the flush). A slow p99 shows here as
 * either queue wait (the listener is saturated) or flush time (the database stalls).
 */
export class IngestMetrics {
  private readonly requests: Counter<'status' | 'code'>;
  private readonly reports: Counter<'result'>;
  private readonly requestSeconds: Histogram;
  private readonly queueWaitSeconds: Histogram;
  private readonly flushSeconds: Histogram<'outcome'>;
  private readonly flushReports: Histogram;

  constructor(readonly registry = new Registry()) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'inferwatch_ingest_requests_total',
      help: 'Ingest requests answered, by HTTP status and error code ("ok" when stored).',
      labelNames: ['status', 'code'],
      registers,
    });
    this.reports = new Counter({
      name: 'inferwatch_ingest_reports_total',
      help: 'Reports in answered ingest requests: stored ("accepted") or already stored ("duplicate").',
      labelNames: ['result'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'inferwatch_ingest_request_duration_seconds',
      help: 'From an ingest request\'s body in hand to its answer, storage included.',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.queueWaitSeconds = new Histogram({
      name: 'inferwatch_ingest_queue_wait_seconds',
      help: 'How long the oldest request of each group-commit flush waited in the queue before the flush began.',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.flushSeconds = new Histogram({
      name: 'inferwatch_ingest_flush_duration_seconds',
      help: 'Group-commit flushes (one transaction each), from start to commit or failure, retries included.',
      labelNames: ['outcome'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.flushReports = new Histogram({
      name: 'inferwatch_ingest_flush_reports',
      help: 'Reports per group-commit flush.',
      buckets: REPORTS_BUCKETS,
      registers,
    });
  }

  observeRequest(output: { status: number; body: unknown }, seconds: number): void {
    const body = output.body as { accepted?: number; duplicate?: number; error?: { code?: string } };
    this.requests.inc({ status: String(output.status), code: output.status === 200 ? 'ok' : (body.error?.code ?? 'unknown') });
    if (output.status === 200) {
      this.reports.inc({ result: 'accepted' }, body.accepted ?? 0);
      this.reports.inc({ result: 'duplicate' }, body.duplicate ?? 0);
    }
    this.requestSeconds.observe(seconds);
  }

  observeFlush(flush: FlushOutcome): void {
    this.queueWaitSeconds.observe(flush.queuedMs / 1000);
    this.flushSeconds.observe({ outcome: flush.ok ? 'committed' : 'failed' }, flush.flushMs / 1000);
    this.flushReports.observe(flush.reports);
  }
}
