import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, expect, test } from 'vitest';
import { parseIngestBody } from '../../lib/protocol';

/** The issue asks for a one-minute outage; 10 s exercises the same backoff path and keeps the suite fast. */
const OUTAGE_MS = 10_000;
const repoRoot = path.resolve(import.meta.dirname, '../..');

/** A stand-in for the ingest server: stores each (seq) once, acknowledges duplicates without storing them. */
function createStandInServer() {
  const stored = new Map<number, number>();
  let duplicates = 0;
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
      for (const report of reports) {
        if (stored.has(report.seq)) duplicates++;
        else stored.set(report.seq, report.ts);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accepted: reports.length, duplicate: 0, acknowledgedSeqs: reports.map((r) => r.seq) }));
    });
  });
  return {
    stored,
    stats: () => ({ duplicates, enrollments, rejectedAuth }),
    listen: (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-delivery-'));
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function startAgent(port: number, extra: string[] = []): ChildProcess & { log: string[] } {
  const child = spawn(
    process.execPath,
    [
      '--import', 'tsx', path.join(repoRoot, 'agent/cli.ts'),
      '--server', `http://127.0.0.1:${port}`,
      '--interval', '1',
      '--state-dir', stateDir,
      '--enroll-key', 'ek-delivery',
      '--statsd-addr', 'off',
      '--http-intake-addr', 'off',
      ...extra,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  ) as ChildProcess & { log: string[] };
  child.log = [];
  child.stderr!.on('data', (d: Buffer) => child.log.push(d.toString('utf8')));
  children.push(child);
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

async function waitFor(what: string, check: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test('every report survives a server outage and a SIGKILL and is stored exactly once, without gaps', { timeout: 180_000 }, async () => {
  const ingest = createStandInServer();
  const port = await ingest.listen(0);

  const first = startAgent(port);
  await waitFor('the first reports', () => ingest.stored.size >= 3, 30_000);

  await ingest.stop();
  const storedBeforeOutage = ingest.stored.size;
  await sleep(OUTAGE_MS);
  expect(ingest.stored.size).toBe(storedBeforeOutage);
  await ingest.listen(port);
  const producedDuringOutage = OUTAGE_MS / 1000;
  await waitFor('the outage backlog', () => ingest.stored.size >= storedBeforeOutage + producedDuringOutage, 60_000);

  await sleep(1500);
  first.kill('SIGKILL');
  await exitOf(first);

  const second = startAgent(port);
  await sleep(4000);
  second.kill('SIGTERM');
  expect(await exitOf(second)).toBe(0);

  // A last --once run sends the remaining backlog oldest first and exits 0 once its own report is acknowledged.
  const last = startAgent(port, ['--once']);
  expect(await exitOf(last)).toBe(0);

  const nextSeq = (JSON.parse(readFileSync(path.join(stateDir, 'seq.json'), 'utf8')) as { nextSeq: number }).nextSeq;
  const seqs = [...ingest.stored.keys()].sort((a, b) => a - b);
  expect(seqs).toEqual(Array.from({ length: nextSeq }, (_, i) => i));
  expect(nextSeq).toBeGreaterThan(storedBeforeOutage + producedDuringOutage);
  expect(ingest.stats().enrollments).toBe(1);
  expect(ingest.stats().rejectedAuth).toBe(0);
  expect(statSync(path.join(stateDir, 'host-token.json')).mode & 0o777).toBe(0o600);
  expect([...first.log, ...second.log, ...last.log].join('')).not.toMatch(/tok-delivery|ek-delivery/);
});
