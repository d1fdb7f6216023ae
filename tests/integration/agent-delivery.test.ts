import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { expect, test } from 'vitest';
import { parseIngestBody } from '../../lib/protocol';
import { runDeliveryScenario, type DeliveryTarget } from '../support/delivery-scenario';

/** A stand-in for the ingest server: stores each (seq) once, acknowledges duplicates without storing them. */
function createStandInServer(): DeliveryTarget & { rejectedAuth: () => number } {
  const stored = new Map<number, number>();
  let enrollments = 0;
  let rejectedAuth = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.url === '/api/v1/enroll') {
        enrollments++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ hostId: 1, token: 'tok-delivery', region: 'test', nextSeq: 0 }));
        return;
      }
      if (req.headers.authorization !== 'Bearer tok-delivery') {
        rejectedAuth++;
        res.writeHead(401).end();
        return;
      }
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      const reports = parseIngestBody(JSON.parse(body.toString('utf8')));
      for (const report of reports) if (!stored.has(report.seq)) stored.set(report.seq, report.ts);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accepted: reports.length, duplicate: 0, acknowledgedSeqs: reports.map((r) => r.seq) }));
    });
  });
  return {
    enrollKey: 'ek-delivery',
    secrets: ['tok-delivery', 'ek-delivery'],
    storedSeqs: async () => [...stored.keys()],
    enrollments: async () => enrollments,
    rejectedAuth: () => rejectedAuth,
    listen: (port) => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

test('against a stand-in server, every report survives an outage and a SIGKILL, stored exactly once without gaps', { timeout: 180_000 }, async () => {
  const server = createStandInServer();
  await runDeliveryScenario(server);
  expect(server.rejectedAuth()).toBe(0);
});
