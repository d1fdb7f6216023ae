import { describe, expect, test } from 'vitest';
import { IngestMetrics } from '../../../lib/ingest/ingest-metrics';

async function series(metrics: IngestMetrics): Promise<Map<string, number>> {
  const text = await metrics.registry.metrics();
  const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return new Map(lines.map((line) => {
    const at = line.lastIndexOf(' ');
    return [line.slice(0, at), Number(line.slice(at + 1))];
  }));
}

describe('IngestMetrics', () => {
  test('counts requests by status and error code, and reports only from stored answers', async () => {
    const metrics = new IngestMetrics();
    metrics.observeRequest({ status: 200, body: { accepted: 3, duplicate: 1, acknowledgedSeqs: [1, 2, 3, 4] } }, 0.004);
    metrics.observeRequest({ status: 200, body: { accepted: 0, duplicate: 2, acknowledgedSeqs: [1, 2] } }, 0.002);
    metrics.observeRequest({ status: 400, body: { error: { code: 'invalid_payload', message: 'x' } } }, 0.0005);
    metrics.observeRequest({ status: 413, body: { error: { code: 'payload_too_large', message: 'x' } } }, 0.03);
    const s = await series(metrics);
    expect(s.get('inferwatch_ingest_requests_total{status="200",code="ok"}')).toBe(2);
    expect(s.get('inferwatch_ingest_requests_total{status="400",code="invalid_payload"}')).toBe(1);
    expect(s.get('inferwatch_ingest_requests_total{status="413",code="payload_too_large"}')).toBe(1);
    expect(s.get('inferwatch_ingest_reports_total{result="accepted"}')).toBe(3);
    expect(s.get('inferwatch_ingest_reports_total{result="duplicate"}')).toBe(3);
    expect(s.get('inferwatch_ingest_request_duration_seconds_count')).toBe(4);
    expect(s.get('inferwatch_ingest_request_duration_seconds_bucket{le="0.001"}')).toBe(1);
    expect(s.get('inferwatch_ingest_request_duration_seconds_bucket{le="0.005"}')).toBe(3);
    expect(s.get('inferwatch_ingest_request_duration_seconds_sum')).toBeCloseTo(0.0365, 6);
  });

  test('files each flush by outcome, in seconds, with its queue wait and size', async () => {
    const metrics = new IngestMetrics();
    metrics.observeFlush({ requests: 3, reports: 31, queuedMs: 4, flushMs: 6, ok: true });
    metrics.observeFlush({ requests: 1, reports: 1, queuedMs: 0.5, flushMs: 300, ok: false });
    const s = await series(metrics);
    expect(s.get('inferwatch_ingest_flush_duration_seconds_count{outcome="committed"}')).toBe(1);
    expect(s.get('inferwatch_ingest_flush_duration_seconds_bucket{le="0.01",outcome="committed"}')).toBe(1);
    expect(s.get('inferwatch_ingest_flush_duration_seconds_bucket{le="0.25",outcome="failed"}')).toBe(0);
    expect(s.get('inferwatch_ingest_flush_duration_seconds_bucket{le="0.5",outcome="failed"}')).toBe(1);
    expect(s.get('inferwatch_ingest_queue_wait_seconds_sum')).toBeCloseTo(0.0045, 6);
    expect(s.get('inferwatch_ingest_flush_reports_bucket{le="50"}')).toBe(2);
    expect(s.get('inferwatch_ingest_flush_reports_bucket{le="20"}')).toBe(1);
    expect(s.get('inferwatch_ingest_flush_reports_sum')).toBe(32);
  });

  test('two instances count apart: a test or a second database does not add to the process registry', async () => {
    const a = new IngestMetrics();
    const b = new IngestMetrics();
    a.observeRequest({ status: 200, body: { accepted: 1, duplicate: 0 } }, 0.001);
    expect((await series(b)).get('inferwatch_ingest_requests_total{status="200",code="ok"}')).toBeUndefined();
  });
});
