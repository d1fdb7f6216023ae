import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createIngestHttpHandler } from '../../lib/ingest/http/node-handler';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestLimits } from '../../lib/ingest/limits';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { buildRequest, expectIngestAnswer, requestPlanArb, type FuzzRequest } from '../support/report-mutations';
import { createServerDatabase, enrolledHost, jsonBody, type TestDatabase } from './ingest-helpers';
import { realisticReport } from '../../bench/_ingest-report';
import { rowsOf } from '../support/rows';

// 300 mutated requests through the real listener, authentication, validation and group-commit writer, three hosts at
// a time so that a refused report shares its flush with others: never a 5xx, nothing of a refused request stored.
const GROUPS = 100;
const START_MS = Date.now() - 3_600_000;

let t: TestDatabase;
let deps: IngestDeps;
let server: http.Server;
let baseUrl: string;
let hosts: { hostId: number; token: string }[];

beforeAll(async () => {
  t = await createServerDatabase();
  const limits = ingestLimits();
  deps = createIngestDeps(t.db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } } });
  const handle = createIngestHttpHandler((input) => ingestRequest(input, deps));
  server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/ingest`;
  hosts = await Promise.all([1, 2, 3].map(() => enrolledHost(t.db)));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await deps?.writer.close();
  await t?.drop();
});

async function send(token: string, request: { body: Buffer; contentEncoding: string | null }) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (request.contentEncoding !== null) headers['content-encoding'] = request.contentEncoding;
  const response = await fetch(baseUrl, { method: 'POST', headers, body: new Uint8Array(request.body) });
  return { status: response.status, body: (await response.json()) as unknown };
}

async function stored(hostId: number) {
  const [row] = await rowsOf<{ ledger: number; samples: number }>(t.db.sql,
    `SELECT (SELECT count(*)::int FROM report_ledger WHERE host_id = $1) AS ledger, (SELECT count(*)::int FROM host_samples WHERE host_id = $1) AS samples`,
    [hostId],
  );
  return row!;
}

test(`${GROUPS * 3} mutated requests end to end: 200 or a 4xx with the envelope, and a refused request stores nothing`, async () => {
  const unhandled = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(requestPlanArb, fc.nat(30)), { minLength: 3, maxLength: 3 }), async (plans) => {
        unhandled.mockClear();
        // Seqs repeat across requests (an agent's retry), and a seq keeps its ts unless a mutation changes it.
        const requests: FuzzRequest[] = plans.map(([plan, slot]) => buildRequest(plan, slot * 10, START_MS + slot * 10_000));
        const before = await Promise.all(hosts.map((h) => stored(h.hostId)));
        const answers = await Promise.all(hosts.map((h, i) => send(h.token, requests[i]!)));
        const after = await Promise.all(hosts.map((h) => stored(h.hostId)));
        answers.forEach((answer, i) => {
          expectIngestAnswer(answer, requests[i]!);
          const accepted = answer.status === 200 ? (answer.body as { accepted: number }).accepted : 0;
          expect(after[i]!.ledger - before[i]!.ledger, JSON.stringify(answer.body)).toBe(accepted);
          if (answer.status !== 200) expect(after[i]!.samples).toBe(before[i]!.samples);
        });
        expect(unhandled.mock.calls).toEqual([]);
      }),
      { numRuns: GROUPS },
    );
  } finally {
    unhandled.mockRestore();
  }
  for (const [i, host] of hosts.entries()) {
    const good = await send(host.token, jsonBody(realisticReport(10_000 + i, Date.now() - 1_000)));
    expect(good).toMatchObject({ status: 200, body: { accepted: 1 } });
  }
}, 300_000);
