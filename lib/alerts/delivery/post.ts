import http from 'node:http';
import https from 'node:https';
import { guardedLookup, RefusedTargetError, refusedUrl, type Resolver, type TargetPolicy } from '../channels/target-policy';
import type { HttpRequest } from './send';

/** What is kept of a receiver's answer: its status and at most RESPONSE_BODY_LIMIT bytes of its body. */
export interface PostResult {
  status: number;
  body: string;
}

/** Sends one request; rejects when there is no answer (a refused target, no connection, a timeout). */
export type Poster = (request: HttpRequest, signal: AbortSignal) => Promise<PostResult>;

/** Bytes of a receiver's answer read at most; the rest is not read (the connection is closed instead). */
export const RESPONSE_BODY_LIMIT = 4096;

/**
 * "could not connect": the one message for a target that is refused, closed, filtered, unreachable or unknown, so the
 * delivery log cannot be used to map which ports of which hosts answer. `reason` is set only for our own refusal.
 */
export class CouldNotConnectError extends Error {
  constructor(readonly reason?: string) {
    super(reason ? `could not connect: ${reason}` : 'could not connect');
    this.name = 'CouldNotConnectError';
  }
}

/**
 * POSTs over node's http/https with the policy's lookup: a literal IP is checked here, a name when it resolves, and the
 * socket connects to the address that was checked (the URL's host stays the Host header and the TLS server name).
 */
export function createPoster(policy: TargetPolicy, resolve?: Resolver): Poster {
  const lookup = guardedLookup(policy, resolve);
  return (request, signal) =>
    new Promise<PostResult>((resolve, reject) => {
      const refused = refusedUrl(request.url, policy);
      if (refused !== null) return reject(new CouldNotConnectError(`target refused (${refused})`));
      const url = new URL(request.url);
      const transport = url.protocol === 'https:' ? https : http;
      let connected = false;
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      const req = transport.request(url, {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        lookup,
        // Each delivery on its own connection: a pooled socket would skip the lookup, and the check with it.
        agent: false,
      });
      const onAbort = () => {
        const reason: unknown = signal.reason;
        // Before the connection is up, a timeout says no more than a refusal would (a filtered port hangs, a closed one refuses).
        req.destroy();
        fail(connected || !(reason instanceof Error && reason.name === 'TimeoutError') ? reason : new CouldNotConnectError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('socket', (socket) => {
        const up = () => (connected = true);
        if (!socket.connecting) up();
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', up);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        if (err instanceof RefusedTargetError) return fail(new CouldNotConnectError(`target refused (${err.reason})`));
        fail(connected ? err : new CouldNotConnectError());
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          signal.removeEventListener('abort', onAbort);
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT) chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
          kept += chunk.length;
          if (kept >= RESPONSE_BODY_LIMIT) {
            // Enough for the log: the rest is never read.
            done();
            res.destroy();
            req.destroy();
          }
        });
        res.on('end', done);
        res.on('close', done);
        res.on('error', () => done());
      });
      req.end(request.body);
    });
}
