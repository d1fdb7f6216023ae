import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Report } from '../../../../lib/protocol';
import type { Logger } from '../../../../agent/log';
import { createSender } from '../../../../agent/transport/sender';
import { openSpool, type Spool } from '../../../../agent/transport/spool';
import { makeReport } from './report-fixture';

interface Received {
  headers: http.IncomingHttpHeaders;
  seqs: number[];
}
type Answer = (seqs: number[]) => { status: number; headers?: Record<string, string>; body?: unknown };

const ackAll: Answer = (seqs) => ({ status: 200, body: { accepted: seqs.length, duplicate: 0, acknowledgedSeqs: seqs } });
let answers: Answer[] = [];
let received: Received[] = [];
/** The waits the sender asked for between attempts, in order: recorded instead of slept. */
let waits: number[] = [];
const recordWait = async (ms: number) => {
  waits.push(ms);
};
/** A guard against a hang only: with waits recorded instead of slept, a run ends as soon as its requests do. */
const HANG_GUARD_MS = 60_000;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8')) as { reports: Report[] };
      const seqs = body.reports.map((r) => r.seq);
      received.push({ headers: req.headers, seqs });
      const answer = (answers.shift() ?? ackAll)(seqs);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  answers = [];
  received = [];
  waits = [];
});

function capturingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (msg: string, fields?: object) => lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { logger, lines };
}

async function spoolWith(seqs: number[], padding: (seq: number) => number = () => 0): Promise<Spool> {
  const spool = await openSpool(mkdtempSync(path.join(os.tmpdir(), 'iw-sender-')), 10_000_000);
  for (const seq of seqs) await spool.append(makeReport(seq, padding(seq)));
  return spool;
}

function senderFor(spool: Spool, logger: Logger, server = baseUrl) {
  return createSender({
    server,
    getToken: async () => 'host-token-123',
    spool,
    log: logger,
    backoff: { initialMs: 10, maxMs: 40 },
    random: () => 0.5,
    sleep: recordWait,
  });
}

const remaining = async (spool: Spool) => (await spool.takeBatch(1000, 1e9)).map((r) => r.seq);

// Each test writes its reports through the real spool (fsync per report): the timeout only guards against a hang.
describe('sender', { timeout: HANG_GUARD_MS }, () => {
  test('posts a gzipped {reports} batch, oldest first, with the bearer token, and acks what the server acknowledged', async () => {
    const spool = await spoolWith([5, 3, 4]);
    answers = [(seqs) => ({ status: 200, body: { accepted: 2, duplicate: 0, acknowledgedSeqs: seqs.slice(0, 2) } })];
    const outcome = await senderFor(spool, capturingLogger().logger).sendOldestBatch();
    expect(outcome).toEqual({ kind: 'acked', seqs: [3, 4] });
    expect(received[0]!.seqs).toEqual([3, 4, 5]);
    expect(received[0]!.headers).toMatchObject({
      authorization: 'Bearer host-token-123',
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(await remaining(spool)).toEqual([5]);
  });

  test('splits batches at 200 reports', async () => {
    const spool = await spoolWith(Array.from({ length: 250 }, (_, i) => i));
    await senderFor(spool, capturingLogger().logger).sendOldestBatch();
    expect(received[0]!.seqs).toHaveLength(200);
    expect(await remaining(spool)).toHaveLength(50);
  });

  test('retries 500 and 429 with the same reports, waiting for Retry-After, until a 200', async () => {
    const spool = await spoolWith([0, 1]);
    answers = [() => ({ status: 500 }), () => ({ status: 429, headers: { 'retry-after': '1' } }), ackAll];
    const { logger, lines } = capturingLogger();
    await senderFor(spool, logger).run(AbortSignal.timeout(HANG_GUARD_MS), () => spool.count === 0);
    expect(received.map((r) => r.seqs)).toEqual([[0, 1], [0, 1], [0, 1]]);
    // After the 500: full-jitter backoff (0.5 × 10 ms). After the 429: its Retry-After of 1 s, above the backoff.
    expect(waits).toEqual([5, 1000]);
    expect(spool.count).toBe(0);
    expect(lines.filter((l) => l.startsWith('warn delivery failed'))).toHaveLength(2);
  });

  test('drops a batch the server rejects with 400 and logs the error envelope message', async () => {
    const spool = await spoolWith([0, 1]);
    answers = [() => ({ status: 400, body: { error: { code: 'invalid_payload', message: 'reports.0.cpu: bad', details: [] } } })];
    const { logger, lines } = capturingLogger();
    const outcome = await senderFor(spool, logger).sendOldestBatch();
    expect(outcome).toMatchObject({ kind: 'rejected', status: 400, message: 'reports.0.cpu: bad' });
    expect(spool.count).toBe(0);
    expect(lines.some((l) => l.startsWith('error') && l.includes('reports.0.cpu: bad'))).toBe(true);
  });

  test('keeps the spool on 401 and logs what the server says to do, without logging the token', async () => {
    const spool = await spoolWith([0, 1]);
    const revoked = 'this host token (host 7) was revoked by an administrator; once one approves its re-enrollment (npm run admin -- hosts approve-reenroll 7), …';
    answers = [() => ({ status: 401, body: { error: { code: 'unauthorized', message: revoked } } })];
    const { logger, lines } = capturingLogger();
    const outcome = await senderFor(spool, logger).sendOldestBatch();
    expect(outcome).toEqual({ kind: 'unauthorized', status: 401, code: 'unauthorized', message: revoked });
    expect(await remaining(spool)).toEqual([0, 1]);
    expect(lines.join('\n')).toContain('host token rejected; reports stay in the spool');
    expect(lines.join('\n')).toContain('hosts approve-reenroll 7');
    expect(lines.join('\n')).not.toContain('host-token-123');
  });

  test('a token the server has no record of makes the agent enroll again, and the spool goes out under the new token', async () => {
    const spool = await spoolWith([0, 1]);
    const unknown = { status: 401, body: { error: { code: 'unknown_host_token', message: 'unknown host token: …' } } };
    answers = [() => unknown, ackAll];
    let token = 'old-token';
    const reenrolls: string[] = [];
    const { logger, lines } = capturingLogger();
    const sender = createSender({
      server: baseUrl,
      getToken: async () => token,
      reenroll: async () => {
        reenrolls.push(token);
        token = 'new-token';
        return true;
      },
      spool,
      log: logger,
      backoff: { initialMs: 10, maxMs: 40 },
      sleep: recordWait,
    });
    await sender.run(AbortSignal.timeout(HANG_GUARD_MS), () => spool.count === 0);
    expect(reenrolls).toEqual(['old-token']);
    expect(received.map((r) => r.headers.authorization)).toEqual(['Bearer old-token', 'Bearer new-token']);
    expect(spool.count).toBe(0);
    expect(waits).toEqual([]);
    expect(lines.join('\n')).not.toContain('host token rejected');
  });

  test('a revoked token is not a reason to enroll again, and the same refusal is logged once while it lasts', async () => {
    const spool = await spoolWith([0]);
    const revoked = { status: 401, body: { error: { code: 'unauthorized', message: 'this host token (host 7) was revoked by an administrator' } } };
    answers = [() => revoked, () => revoked, () => revoked, ackAll];
    let reenrolls = 0;
    const { logger, lines } = capturingLogger();
    const sender = createSender({
      server: baseUrl,
      getToken: async () => 'host-token-123',
      reenroll: async () => ++reenrolls > 0,
      spool,
      log: logger,
      backoff: { initialMs: 10, maxMs: 40 },
      sleep: recordWait,
    });
    await sender.run(AbortSignal.timeout(HANG_GUARD_MS), () => spool.count === 0);
    expect(reenrolls).toBe(0);
    expect(received).toHaveLength(4);
    expect(lines.filter((l) => l.includes('host token rejected'))).toHaveLength(1);
  });

  test('when enrolling again fails, the refusal stays in the log and the reports stay in the spool', async () => {
    const spool = await spoolWith([0]);
    answers = [() => ({ status: 401, body: { error: { code: 'unknown_host_token', message: 'unknown host token' } } })];
    const { logger, lines } = capturingLogger();
    const sender = createSender({ server: baseUrl, getToken: async () => 't', reenroll: async () => false, spool, log: logger, sleep: recordWait });
    expect(await sender.sendOldestBatch()).toMatchObject({ kind: 'unauthorized', code: 'unknown_host_token' });
    expect(await remaining(spool)).toEqual([0]);
    expect(lines.join('\n')).toContain('host token rejected; reports stay in the spool');
  });

  test('on 413 splits the batch and drops only the single report that is itself too large', async () => {
    const spool = await spoolWith([0, 1, 2, 3], (seq) => (seq === 2 ? 400 : 0));
    answers = Array.from({ length: 10 }, () => (seqs: number[]) => (seqs.includes(2) ? { status: 413 } : ackAll(seqs)));
    const { logger, lines } = capturingLogger();
    const sender = senderFor(spool, logger);
    await sender.sendOldestBatch();
    expect(received.map((r) => r.seqs)).toEqual([[0, 1, 2, 3], [0, 1], [2, 3], [2], [3]]);
    expect(spool.count).toBe(0);
    expect(lines.filter((l) => l.includes('too large'))).toHaveLength(1);
    expect(lines.find((l) => l.includes('too large'))).toContain('"seq":2');
  });

  test('answers 200, 500, 429, 400, 401, 413 in sequence: only the 400 batch is dropped, the 401 batch is kept and retried', async () => {
    const spool = await spoolWith([0, 1, 2, 3, 4, 5, 6, 7]);
    const script: Answer[] = [
      ackAll,
      () => ({ status: 500 }),
      () => ({ status: 429, headers: { 'retry-after': '0' } }),
      () => ({ status: 400, body: { error: { code: 'invalid_payload', message: 'bad' } } }),
      () => ({ status: 401 }),
      () => ({ status: 413 }),
    ];
    const sender = createSender({
      server: baseUrl,
      getToken: async () => 't',
      spool,
      log: capturingLogger().logger,
      maxBatchReports: 2,
      backoff: { initialMs: 5, maxMs: 10 },
      sleep: recordWait,
    });
    answers = [...script];
    await sender.run(AbortSignal.timeout(HANG_GUARD_MS), () => spool.count === 0);
    expect(received.map((r) => r.seqs)).toEqual([[0, 1], [2, 3], [2, 3], [2, 3], [4, 5], [4, 5], [4], [5], [6, 7]]);
    expect(spool.count).toBe(0);
  });

  /** A server on a clock `elapsedMs()` past the real one, refusing (400) what is stamped over 5 minutes ahead of it. */
  function serverOnClock(elapsedMs: () => number, stamped: Map<number, number>): Answer {
    return (seqs) => {
      const serverMs = Date.now() + elapsedMs();
      const date = new Date(serverMs).toUTCString();
      if (seqs.some((seq) => stamped.get(seq)! > serverMs + 5 * 60_000)) {
        return { status: 400, headers: { date }, body: { error: { code: 'invalid_payload', message: 'reports.0.ts: in the future' } } };
      }
      return { ...ackAll(seqs), headers: { date } };
    };
  }

  async function stampedSpool(stamps: [seq: number, ts: number][], stamped: Map<number, number>, spool?: Spool): Promise<Spool> {
    const target = spool ?? (await openSpool(mkdtempSync(path.join(os.tmpdir(), 'iw-sender-')), 10_000_000));
    for (const [seq, ts] of stamps) {
      stamped.set(seq, ts);
      await target.append({ ...makeReport(seq), ts });
    }
    return target;
  }

  test('keeps reports the server refuses as stamped too far ahead of its clock, and sends them once its clock reaches them', async () => {
    const aheadMs = 10 * 60_000;
    // One virtual time for both sides, moved on by every wait the sender asks for.
    let elapsedMs = 0;
    const stamped = new Map<number, number>();
    const spool = await stampedSpool([0, 1, 2].map((seq) => [seq, Date.now() + aheadMs + seq * 1000]), stamped);
    answers = Array.from({ length: 50 }, () => serverOnClock(() => elapsedMs, stamped));
    const { logger, lines } = capturingLogger();
    const sender = createSender({
      server: baseUrl,
      getToken: async () => 't',
      spool,
      log: logger,
      backoff: { initialMs: 1_000, maxMs: 60_000 },
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
        elapsedMs += ms;
      },
      wallMs: () => Date.now() + elapsedMs + aheadMs,
      monoMs: () => elapsedMs,
    });
    await sender.run(AbortSignal.timeout(HANG_GUARD_MS), () => spool.count === 0);

    // Refused once; then held without a request until the server's clock came within 5 minutes of them.
    expect(received.map((r) => r.seqs)).toEqual([[0, 1, 2], [0, 1, 2]]);
    expect(elapsedMs).toBeGreaterThan(aheadMs - 5 * 60_000);
    const clockWarnings = lines.filter((l) => l.includes("this host's clock is ahead of the server's"));
    expect(clockWarnings).toHaveLength(1);
    expect(clockWarnings[0]).toMatch(/"clockAheadS":60[01]/);
    expect(lines.filter((l) => l.includes('wait in the spool until its clock reaches them'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('dropping'))).toBe(false);
  });

  test('once the clock is set right, a report stamped after it goes at once while the early ones keep waiting', async () => {
    let aheadMs = 10 * 60_000;
    let monoMs = 0;
    const stamped = new Map<number, number>();
    const spool = await stampedSpool([[0, Date.now() + aheadMs], [1, Date.now() + aheadMs + 1000]], stamped);
    answers = Array.from({ length: 10 }, () => serverOnClock(() => 0, stamped));
    const { logger, lines } = capturingLogger();
    const sender = createSender({
      server: baseUrl,
      getToken: async () => 't',
      spool,
      log: logger,
      wallMs: () => Date.now() + aheadMs,
      monoMs: () => monoMs,
    });
    expect(await sender.sendOldestBatch()).toEqual({ kind: 'held', reports: 2 });
    expect(await sender.sendOldestBatch()).toEqual({ kind: 'held', reports: 2 });
    expect(received).toHaveLength(1);

    // chrony steps the clock back; the monotonic clock goes on.
    aheadMs = 0;
    monoMs += 1_000;
    await stampedSpool([[2, Date.now()]], stamped, spool);
    // The offset learnt before the step is stale: one request relearns it, then the report stamped right goes alone.
    expect(await sender.sendOldestBatch()).toEqual({ kind: 'held', reports: 3 });
    expect(await sender.sendOldestBatch()).toEqual({ kind: 'acked', seqs: [2] });
    expect(received.map((r) => r.seqs)).toEqual([[0, 1], [0, 1, 2], [2]]);
    expect(await remaining(spool)).toEqual([0, 1]);
    expect(lines.some((l) => l.includes("this host's clock agrees with the server's again"))).toBe(true);
  });

  test('treats a refused connection as retryable and keeps the reports', async () => {
    const spool = await spoolWith([0]);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await senderFor(spool, capturingLogger().logger, `http://127.0.0.1:${port}`).sendOldestBatch();
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'network error: ECONNREFUSED' });
    expect(spool.count).toBe(1);
  });
});
