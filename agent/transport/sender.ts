import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ingestResponseSchema } from '../../lib/protocol';
import { UNKNOWN_HOST_TOKEN } from '../../lib/protocol/errors';
import type { Logger } from '../log';
import { DEFAULT_BACKOFF, backoffDelayMs, parseRetryAfterMs, sleep, type BackoffSettings } from './backoff';
import { errorCodeOf, errorMessageOf } from './enroll';
import { httpPost, type HttpAnswer, type HttpPostError } from './http-post';
import { createServerClock, type ServerClock } from './server-clock';
import type { Spool, SpooledReport } from './spool';

const gzipAsync = promisify(gzip);

const MAX_RETRY_AFTER_MS = 3_600_000;

export type SendOutcome =
  | { kind: 'acked'; seqs: number[] }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'unauthorized'; status: number; code?: string; message: string }
  /** The server did not know the token; the agent enrolled again and holds a new one. */
  | { kind: 'reenrolled' }
  | { kind: 'rejected'; status: number; message: string }
  | { kind: 'too-large' }
  /** Stamped too far ahead of the server's clock: kept in the spool until the server's clock reaches them. */
  | { kind: 'held'; reports: number };

export interface PostBatchInput {
  server: string;
  token: string;
  batch: readonly SpooledReport[];
  timeoutMs: number;
  /** Told the Date of every answer. */
  serverClock?: ServerClock;
}

export function encodeBatch(batch: readonly SpooledReport[]): string {
  return `{"reports":[${batch.map((r) => r.json).join(',')}]}`;
}

/** One POST of one batch; classifies the answer, never throws. */
export async function postBatch(input: PostBatchInput): Promise<SendOutcome> {
  let answer: HttpAnswer;
  try {
    answer = await httpPost({
      url: `${input.server}/api/v1/ingest`,
      headers: {
        authorization: `Bearer ${input.token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: await gzipAsync(encodeBatch(input.batch)),
      timeoutMs: input.timeoutMs,
    });
  } catch (err) {
    return { kind: 'retry', reason: `network error: ${(err as HttpPostError).code ?? (err as Error).message}` };
  }
  input.serverClock?.observe(answer.date);
  const { status, text } = answer;
  if (status >= 200 && status < 300) {
    const parsed = ingestResponseSchema.safeParse(safeJson(text));
    if (!parsed.success) return { kind: 'retry', reason: `HTTP ${status} with an unexpected body` };
    return { kind: 'acked', seqs: parsed.data.acknowledgedSeqs };
  }
  if (status === 401 || status === 403) {
    const code = errorCodeOf(text);
    return { kind: 'unauthorized', status, ...(code === undefined ? {} : { code }), message: errorMessageOf(text) };
  }
  if (status === 413) return { kind: 'too-large' };
  if (status === 429 || status >= 500 || status === 408) {
    const retryAfterMs = parseRetryAfterMs(answer.retryAfter);
    return { kind: 'retry', reason: `HTTP ${status}`, retryAfterMs: retryAfterMs && Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) };
  }
  return { kind: 'rejected', status, message: errorMessageOf(text) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface SenderOptions {
  server: string;
  /** Read for every request, so a token file the operator replaced is picked up without a restart. */
  getToken: () => Promise<string>;
  spool: Spool;
  log: Logger;
  maxBatchReports?: number;
  maxBatchBytes?: number;
  backoff?: BackoffSettings;
  timeoutMs?: number;
  random?: () => number;
  /** How the sender waits between attempts (a test seam). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Called when the server has no record of the host token (a new or restored database): enrolls again with the
   * agent's enrollment key, when it has one, and says whether a new token is in place.
   */
  reenroll?: () => Promise<boolean>;
  /** This host's clock, epoch ms, as reports are stamped with it, and a monotonic one (test seams). */
  wallMs?: () => number;
  monoMs?: () => number;
}

export interface Sender {
  /** Sends until `signal` aborts; with `until`, returns as soon as it holds after a send or on an empty spool. */
  run(signal: AbortSignal, until?: () => boolean): Promise<void>;
  /** Tells a waiting run() that the spool has something new. */
  wake(): void;
  /** One pass over the oldest batch; returns whether it made progress (acked or dropped something). */
  sendOldestBatch(): Promise<SendOutcome | null>;
}

export function createSender(opts: SenderOptions): Sender {
  const maxReports = opts.maxBatchReports ?? 200;
  const maxBytes = opts.maxBatchBytes ?? 1024 * 1024;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const wait = opts.sleep ?? sleep;
  const { spool, log } = opts;
  const serverClock = createServerClock(log, opts.wallMs, opts.monoMs);
  let wakeUp: (() => void) | null = null;
  let wakePending = false;
  let holding = false;
  /** The refusal last logged: the same one again is not logged until delivery recovers. */
  let refusalLogged: string | null = null;

  function hold(reports: number): SendOutcome {
    if (!holding) {
      log.warn("reports stamped over 5 minutes ahead of the server's clock wait in the spool until its clock reaches them", {
        held: reports,
        clockAheadS: Math.round((serverClock.aheadMs ?? 0) / 1000),
      });
    }
    holding = true;
    return { kind: 'held', reports };
  }

  async function deliver(batch: SpooledReport[]): Promise<SendOutcome> {
    const outcome = await postBatch({ server: opts.server, token: await opts.getToken(), batch, timeoutMs, serverClock });
    // Refused because this host's clock is ahead (the answer's Date tells): the reports are not at fault, time is.
    if (outcome.kind === 'rejected' && batch.some((r) => serverClock.refuses(r.ts))) return hold(batch.length);
    switch (outcome.kind) {
      case 'acked':
        await spool.ack(outcome.seqs);
        if (outcome.seqs.length < batch.length) {
          log.warn('server acknowledged only part of a batch; the rest will be resent', {
            sent: batch.length,
            acknowledged: outcome.seqs.length,
          });
        }
        return outcome;
      case 'rejected':
        log.error('server rejected reports; dropping them (this is a bug in the agent or the server)', {
          status: outcome.status,
          error: outcome.message,
          firstSeq: batch[0]?.seq,
          lastSeq: batch.at(-1)?.seq,
          reports: batch.length,
        });
        await spool.ack(batch.map((r) => r.seq));
        return outcome;
      case 'too-large': {
        if (batch.length === 1) {
          log.error('server refused a single report as too large (413); dropping it', {
            seq: batch[0]!.seq,
            bytes: Buffer.byteLength(batch[0]!.json),
          });
          await spool.ack([batch[0]!.seq]);
          return { kind: 'rejected', status: 413, message: 'report too large' };
        }
        const half = Math.ceil(batch.length / 2);
        const first = await deliver(batch.slice(0, half));
        if (first.kind === 'retry' || first.kind === 'unauthorized' || first.kind === 'reenrolled') return first;
        return deliver(batch.slice(half));
      }
      case 'unauthorized':
        if (outcome.code === UNKNOWN_HOST_TOKEN && opts.reenroll && (await opts.reenroll())) return { kind: 'reenrolled' };
        // The server says why (an unknown or replaced token, or one an administrator revoked) and what to do.
        if (refusalLogged !== outcome.message) {
          log.error('host token rejected; reports stay in the spool', {
            status: outcome.status,
            server: opts.server,
            error: outcome.message,
          });
          refusalLogged = outcome.message;
        }
        return outcome;
      case 'reenrolled':
      case 'retry':
      case 'held':
        return outcome;
    }
  }

  function waitForWake(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        wakeUp = null;
        signal.removeEventListener('abort', done);
        resolve();
      };
      wakeUp = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async function sendOldestBatch(): Promise<SendOutcome | null> {
    const batch = await spool.takeBatch(maxReports, maxBytes);
    if (batch.length === 0) return null;
    const due = batch.filter((r) => !serverClock.refuses(r.ts));
    if (due.length === batch.length) holding = false;
    return due.length === 0 ? hold(batch.length) : deliver(due);
  }

  return {
    sendOldestBatch,
    wake() {
      wakePending = true;
      wakeUp?.();
    },
    async run(signal, until) {
      let failures = 0;
      while (!signal.aborted) {
        if (until?.()) return;
        wakePending = false;
        let outcome: SendOutcome | null;
        try {
          outcome = await sendOldestBatch();
        } catch (err) {
          outcome = { kind: 'retry', reason: `spool error: ${(err as Error).message}` };
        }
        if (outcome === null) {
          if (until) return;
          if (!wakePending) await waitForWake(signal);
          continue;
        }
        if (outcome.kind === 'acked' || outcome.kind === 'rejected' || outcome.kind === 'reenrolled') {
          if (failures > 0) log.info('delivery recovered', { failedAttempts: failures, spooled: spool.count });
          failures = 0;
          refusalLogged = null;
          continue;
        }
        failures++;
        const delayMs = Math.max(('retryAfterMs' in outcome && outcome.retryAfterMs) || 0, backoffDelayMs(failures, backoff, opts.random));
        if (outcome.kind === 'retry') {
          log.warn('delivery failed; will retry', { reason: outcome.reason, attempt: failures, delayMs, spooled: spool.count });
        }
        await wait(delayMs, signal);
      }
    },
  };
}
