import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { runDeliveryScenario, type DeliveryTarget } from '../support/delivery-scenario';
import { rowsOf } from '../support/rows';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase('iw_delivery');
  // The ingest path uses the process's one database, chosen by DATABASE_URL like the real server.
  process.env.DATABASE_URL = testDb.url;
});
afterAll(async () => {
  const { closeIngest } = await import('../../lib/server/process-ingest');
  const { closeDb } = await import('../../lib/db');
  await closeIngest();
  await closeDb();
  await testDb?.drop();
});

/** The production ingest handler and enroll route on a real PostgreSQL database, served like server.ts serves them. */
async function createRealServer(): Promise<DeliveryTarget> {
  const { handleIngestHttp } = await import('../../lib/server/process-ingest');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const { createEnrollmentKey } = await import('../../lib/auth/enrollment-keys');
  const { getDb } = await import('../../lib/db');
  const db = await getDb();
  const { key } = await createEnrollmentKey(db, { name: 'delivery', region: 'oslo', labels: {} });

  // A request the outage cut off may still be committing: stop() waits for it, so the stored count it leaves is final.
  const inFlight = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    if (req.url === '/api/v1/ingest') {
      const handled: Promise<void> = handleIngestHttp(req, res).finally(() => inFlight.delete(handled));
      inFlight.add(handled);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: 'POST',
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      const response = await enroll(request);
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(await response.text());
    });
  });
  return {
    enrollKey: key,
    secrets: [key],
    storedSeqs: async () =>
      (await rowsOf<{ seq: number }>(db.sql, 'SELECT seq FROM report_ledger')).map((row) => Number(row.seq)),
    enrollments: async () => db.prisma.host.count(),
    listen: (port) => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(inFlight);
    },
  };
}

test('against the real ingest on PostgreSQL, every report survives an outage and a SIGKILL, stored exactly once', { timeout: 180_000 }, async () => {
  const server = await createRealServer();
  await runDeliveryScenario(server);
  const { getDb } = await import('../../lib/db');
  const db = await getDb();
  const [ledger] = await rowsOf<{ n: number }>(db.sql, 'SELECT count(*)::int AS n FROM report_ledger');
  const [samples] = await rowsOf<{ n: number }>(db.sql, 'SELECT count(*)::int AS n FROM host_samples');
  expect(samples?.n).toBe(ledger?.n);
});
