import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ProbeSample } from '../../lib/protocol';
import type { ProbeSpec } from './probe-spec';
import { defineCollector } from './registration';
import type { Collector } from './types';

const MAX_ERROR_LENGTH = 500;

/**
 * Times one probe on a fresh connection. connectMs is the TCP handshake (after DNS); responseMs, for http(s), is
 * the time from the start (DNS, TCP, TLS, server think time) to the response headers. Never rejects.
 * `now` is the monotonic clock the timings are read from (a test seam).
 */
export function runProbe(spec: ProbeSpec, timeoutMs: number, now: () => number = () => performance.now()): Promise<ProbeSample> {
  return new Promise((resolve) => {
    const startedAt = now();
    let handshakeStartedAt = startedAt;
    let connectMs: number | null = null;
    let settled = false;
    let cleanup = () => {};
    const finish = (responseMs: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cleanup();
      resolve({ name: spec.name, target: spec.target, ok: error === null, connectMs, responseMs, error });
    };
    const fail = (err: unknown) => finish(null, describeError(err));
    const timer = setTimeout(() => finish(null, `timed out after ${timeoutMs} ms`), timeoutMs);
    const watchSocket = (socket: net.Socket) => {
      socket.once('lookup', () => (handshakeStartedAt = now()));
      socket.once('connect', () => {
        connectMs = now() - handshakeStartedAt;
        if (spec.protocol === 'tcp') finish(null, null);
      });
    };
    try {
      if (spec.protocol === 'tcp') {
        const socket = net.connect({ host: spec.host, port: spec.port });
        cleanup = () => socket.destroy();
        watchSocket(socket);
        socket.once('error', fail);
        return;
      }
      const client = spec.protocol === 'https' ? https : http;
      const request = client.request(spec.url, {
        method: 'GET',
        agent: false,
        headers: { 'user-agent': 'inferwatch-agent-probe', connection: 'close' },
      });
      cleanup = () => request.destroy();
      request.once('socket', watchSocket);
      request.once('error', fail);
      request.once('response', (response) => {
        const responseMs = now() - startedAt;
        response.resume();
        const status = response.statusCode ?? 0;
        finish(responseMs, status >= 500 ? `HTTP ${status}` : null);
      });
      request.end();
    } catch (err) {
      fail(err);
    }
  });
}

/** Probes must finish before the next collection starts. */
export function probeTimeoutMsFor(intervalMs: number): number {
  return Math.max(50, Math.min(5000, Math.floor(intervalMs * 0.8)));
}

export function createProbeCollector(
  specs: readonly ProbeSpec[],
  { intervalMs = 10_000, timeoutMs = probeTimeoutMsFor(intervalMs) }: { intervalMs?: number; timeoutMs?: number } = {},
): Collector<ProbeSample[]> {
  const boundedTimeoutMs = Math.min(timeoutMs, probeTimeoutMsFor(intervalMs));
  return {
    collect: () => Promise.all(specs.map((spec) => runProbe(spec, boundedTimeoutMs))),
  };
}

function describeError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  // Node's happy-eyeballs connect rejects with an AggregateError whose own message is empty.
  const message =
    err instanceof AggregateError && err.message === '' ? err.errors.map((e) => String(e?.message ?? e)).join('; ') :
    err instanceof Error ? err.message : String(err);
  const text = code && !message.includes(code) ? `${code}: ${message}` : message;
  return text.slice(0, MAX_ERROR_LENGTH) || 'unknown error';
}

export const probeCollector = defineCollector({
  name: 'probes',
  reads: ['the --probe targets (tcp, http, https)'],
  cadence: 'interval',
  create: ({ config }) => createProbeCollector(config.probes, { intervalMs: config.intervalMs }),
  whenFailed: () => [],
  toReport: (probes) => ({ sections: { probes } }),
});
