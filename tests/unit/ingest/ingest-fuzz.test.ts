import fc from 'fast-check';
import { afterAll, beforeAll, expect, test, vi, type MockInstance } from 'vitest';
import { UnauthorizedError } from '../../../lib/errors';
import { IngestMetrics } from '../../../lib/ingest/ingest-metrics';
import { ingestRequest, UnavailableBreaker, type IngestDeps } from '../../../lib/ingest/ingest-request';
import { HostRateLimiter } from '../../../lib/ingest/rate-limit';
import { encodeReport } from '../../../lib/ingest/write/group-commit/encoded-report';
import type { WriteRequest } from '../../../lib/ingest/write/writer';
import { DAY_MS, MAX_REPORT_FUTURE_MS } from '../../../lib/protocol/time';
import { buildRequest, expectIngestAnswer, nearValidPlanArb, requestPlanArb, type RequestPlan } from '../../support/report-mutations';

const NOW = Date.UTC(2026, 10, 29, 12);
const TOKEN = 'iwh_fuzz';
const UNPACED = { requestsPerS: 1e9, requestBurst: 1e9, reportsPerMin: 1e12, reportBurst: 1e9 };

/** Ingest as the server runs it, with a writer that encodes each report's COPY tuples as the server's does, and keeps it. */
function fuzzDeps() {
  const written: WriteRequest[] = [];
  const deps: IngestDeps = {
    authenticate: (token) => (token === TOKEN ? Promise.resolve({ id: 7, region: 'oslo' }) : Promise.reject(new UnauthorizedError())),
    writer: {
      write(request) {
        request.reports.forEach((report) => encodeReport(request.hostId, report));
        written.push(request);
        return Promise.resolve({ acceptedSeqs: request.reports.map((r) => r.seq), duplicateSeqs: [] });
      },
      close: () => Promise.resolve(),
    },
    rateLimiter: new HostRateLimiter(UNPACED),
    limits: { maxCompressedBytes: 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024, maxFutureMs: MAX_REPORT_FUTURE_MS, maxAgeMs: 7 * DAY_MS, rate: UNPACED },
    nowMs: () => NOW,
    breaker: new UnavailableBreaker(),
    metrics: new IngestMetrics(),
  };
  return { deps, written };
}

let unhandled: MockInstance<typeof console.error>;
let reportsSent = 0;
let seq = 0;
const { deps, written } = fuzzDeps();

beforeAll(() => {
  // A 500 logs its error: caught here, so the property fails on it and fast-check shrinks it.
  unhandled = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(() => {
  unhandled.mockRestore();
  expect(reportsSent).toBeGreaterThanOrEqual(10_000);
});

async function holdsFor(plan: RequestPlan): Promise<void> {
  unhandled.mockClear();
  seq += 10;
  reportsSent += plan.reports.length;
  const request = buildRequest(plan, seq, NOW - 60_000);
  const writesBefore = written.length;
  const out = await ingestRequest(
    { authorization: `Bearer ${TOKEN}`, contentType: 'application/json', contentEncoding: request.contentEncoding, body: request.body },
    deps,
  );
  expectIngestAnswer(out, request);
  if (out.status === 200) {
    expect(written).toHaveLength(writesBefore + 1);
    expect(written.at(-1)!.reports.map((r) => r.seq)).toEqual((out.body as { acknowledgedSeqs: number[] }).acknowledgedSeqs);
  } else {
    expect(written).toHaveLength(writesBefore);
  }
  expect(unhandled.mock.calls).toEqual([]);
}

// Together at least 10,000 reports (1–3 per request, 3 near-valid). A failure prints fast-check's seed and the shrunk request.
test('mutated requests of every kind: 200 or a 4xx with the error envelope, and only a 200 reaches the writer', async () => {
  await fc.assert(fc.asyncProperty(requestPlanArb, holdsFor), { numRuns: 2_500 });
}, 120_000);

test('near-valid requests, one value changed per report: the same, and what passes is encodable for its columns', async () => {
  await fc.assert(fc.asyncProperty(nearValidPlanArb, holdsFor), { numRuns: 2_000 });
}, 120_000);
