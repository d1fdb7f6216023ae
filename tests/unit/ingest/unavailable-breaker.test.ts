import { expect, test } from 'vitest';
import { DatabaseUnavailableError, UnauthorizedError } from '../../../lib/errors';
import { IngestMetrics } from '../../../lib/ingest/ingest-metrics';
import { ingestRequest, UnavailableBreaker, type IngestDeps } from '../../../lib/ingest/ingest-request';
import { HostRateLimiter } from '../../../lib/ingest/rate-limit';
import type { WriteRequest } from '../../../lib/ingest/write/writer';
import { DAY_MS, MAX_REPORT_FUTURE_MS } from '../../../lib/protocol/time';
import { makeReport } from '../../support/report-factory';

const TOKEN = 'iwh_breaker';
const OPEN_FOR_MS = 2_000;
const UNPACED = { requestsPerS: 1e9, requestBurst: 1e9, reportsPerMin: 1e12, reportBurst: 1e9 };

/** Ingest over a writer whose database is down until `recoversAtMs` on the test's clock. */
function depsWithOutage(recoversAtMs: number, rate = UNPACED) {
  let nowMs = 0;
  const writes: WriteRequest[] = [];
  const deps: IngestDeps = {
    authenticate: (token) => (token === TOKEN ? Promise.resolve({ id: 1, region: 'oslo' }) : Promise.reject(new UnauthorizedError())),
    writer: {
      write(request) {
        writes.push(request);
        if (nowMs < recoversAtMs) return Promise.reject(new DatabaseUnavailableError());
        return Promise.resolve({ acceptedSeqs: request.reports.map((r) => r.seq), duplicateSeqs: [] });
      },
      close: () => Promise.resolve(),
    },
    rateLimiter: new HostRateLimiter(rate),
    limits: { maxCompressedBytes: 1024 * 1024, maxDecompressedBytes: 16 * 1024 * 1024, maxFutureMs: MAX_REPORT_FUTURE_MS, maxAgeMs: 7 * DAY_MS, rate },
    nowMs: () => nowMs,
    breaker: new UnavailableBreaker(OPEN_FOR_MS),
    metrics: new IngestMetrics(),
  };
  return { deps, writes, setNow: (ms: number) => (nowMs = ms) };
}

const T0 = Date.UTC(2026, 11, 2, 12);

/** Reports every `everyMs` from T0 for `forMs`: the status of each, by when it was sent (ms after T0). */
async function reportEvery(everyMs: number, forMs: number, outage: ReturnType<typeof depsWithOutage>) {
  const statuses: [number, number][] = [];
  for (let at = 0, seq = 0; at < forMs; at += everyMs, seq++) {
    outage.setNow(T0 + at);
    const body = Buffer.from(JSON.stringify(makeReport({ seq, ts: T0 + at - 1_000 })));
    const out = await ingestRequest({ authorization: `Bearer ${TOKEN}`, contentType: 'application/json', contentEncoding: undefined, body }, outage.deps);
    statuses.push([at, out.status]);
  }
  return statuses;
}

test('a failed flush opens the breaker for its time only, although reports keep coming more often than that', async () => {
  // The database fails the first write and is back 100 ms later; a fleet's reports arrive every 100 ms.
  const outage = depsWithOutage(T0 + 100);
  const statuses = await reportEvery(100, 3_000, outage);
  expect(statuses.filter(([, status]) => status === 503).map(([at]) => at)).toEqual(Array.from({ length: OPEN_FOR_MS / 100 }, (_, i) => i * 100));
  expect(statuses.filter(([at]) => at >= OPEN_FOR_MS).every(([, status]) => status === 200)).toBe(true);
  // While open, nothing waited on the database: only the first report reached the writer before it was back.
  expect(outage.writes.length).toBe(1 + statuses.filter(([at]) => at >= OPEN_FOR_MS).length);
});

test('while the database stays down, the breaker lets one report through each time it closes, and opens again', async () => {
  const outage = depsWithOutage(Infinity);
  const statuses = await reportEvery(100, 6_500, outage);
  expect(statuses.every(([, status]) => status === 503)).toBe(true);
  expect(outage.writes.length).toBe(4); // at 0, 2,000, 4,000 and 6,000 ms
});

test("the breaker's refusals do not spend the host's report budget", async () => {
  // A budget of 30 reports that refills slowly: the 40 refused in the outage would have spent it all.
  const outage = depsWithOutage(T0 + 2_500, { requestsPerS: 1e9, requestBurst: 1e9, reportsPerMin: 1, reportBurst: 30 });
  const statuses = await reportEvery(100, 4_100, outage);
  // Only the two that reached the writer (at 0 and 2,000 ms) were counted; the first after the breaker closed is stored.
  expect(statuses.filter(([, status]) => status !== 503)).toEqual([[4_000, 200]]);
});
