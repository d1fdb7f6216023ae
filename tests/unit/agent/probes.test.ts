import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { probeSampleSchema } from '../../../lib/protocol';
import { parseProbeSpec } from '../../../agent/collectors/probe-spec';
import { createProbeCollector, probeTimeoutMsFor, runProbe } from '../../../agent/collectors/probes';

const closers: Array<() => void> = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()!();
});

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.close();
    if (server instanceof http.Server) server.closeAllConnections();
  });
  return (server.address() as net.AddressInfo).port;
}

function httpServer(delayMs: number, status = 200): http.Server {
  return http.createServer((_req, res) => {
    const timer = setTimeout(() => res.writeHead(status).end('ok'), delayMs);
    res.on('close', () => clearTimeout(timer));
  });
}

/** A clock that moves 10 ms each time it is read: timings then show which events were timed, not the machine's speed. */
function steppingClock(stepMs = 10): () => number {
  let t = 0;
  return () => (t += stepMs) - stepMs;
}

/** Generous: these tests are about outcomes, and a slow machine must not turn a refused connection into a timeout. */
const SLOW_MACHINE_TIMEOUT_MS = 30_000;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('parseProbeSpec', () => {
  test('tcp, http and https specs give host, port (scheme defaults) and the URL as target', () => {
    expect(parseProbeSpec('oslo=tcp://10.0.0.5:443')).toMatchObject({ name: 'oslo', protocol: 'tcp', host: '10.0.0.5', port: 443, target: 'tcp://10.0.0.5:443' });
    expect(parseProbeSpec('fra=https://fra.example.com/healthz')).toMatchObject({ name: 'fra', protocol: 'https', host: 'fra.example.com', port: 443 });
    expect(parseProbeSpec('local=http://localhost/')).toMatchObject({ protocol: 'http', port: 80 });
    expect(parseProbeSpec('v6=tcp://[::1]:8080')).toMatchObject({ host: '::1', port: 8080 });
    expect(parseProbeSpec('q=https://h/p?x=a=b').url.search).toBe('?x=a=b');
  });

  const bad: Array<[string, string, RegExp]> = [
    ['no "="', 'tcp://h:1', /missing "="/],
    ['an empty name', '=tcp://h:1', /name must be/],
    ['a URL that does not parse', 'x=not a url', /does not parse/],
    ['an unsupported scheme', 'x=ftp://h/f', /unsupported scheme "ftp:"/],
    ['a tcp URL without port', 'x=tcp://h', /needs a port/],
    ['a tcp URL with a path', 'x=tcp://h:1/path', /takes no path/],
    ['a port out of range', 'x=tcp://h:70000', /does not parse/],
  ];

  test.each(bad)('a spec with %s is refused with a message naming the spec and the expected format', (_, spec, reason) => {
    expect(() => parseProbeSpec(spec)).toThrow(reason);
    expect(() => parseProbeSpec(spec)).toThrow(`invalid probe spec "${spec}"`);
    expect(() => parseProbeSpec(spec)).toThrow(/NAME=tcp:\/\/HOST:PORT/);
  });
});

describe('runProbe on loopback', () => {
  test('a TCP probe to a listening port times the handshake from the start and has no response time', async () => {
    const port = await listen(net.createServer((socket) => socket.destroy()));
    // Clock reads: start (0), connect (10); an IP literal needs no DNS lookup.
    const sample = await runProbe(parseProbeSpec(`local=tcp://127.0.0.1:${port}`), SLOW_MACHINE_TIMEOUT_MS, steppingClock());
    expect(sample).toEqual({ name: 'local', target: `tcp://127.0.0.1:${port}`, ok: true, connectMs: 10, responseMs: null, error: null });
    expect(probeSampleSchema.safeParse(sample).success).toBe(true);
  });

  test('an HTTP probe times the handshake and, from the start, the response headers', async () => {
    const port = await listen(httpServer(50));
    // Clock reads: start (0), connect (10), response headers (20).
    const sample = await runProbe(parseProbeSpec(`slow=http://127.0.0.1:${port}/predict`), SLOW_MACHINE_TIMEOUT_MS, steppingClock());
    expect(sample).toMatchObject({ ok: true, error: null, connectMs: 10, responseMs: 20 });
    expect(probeSampleSchema.safeParse(sample).success).toBe(true);
  });

  test('on the real clock, timings are non-negative and the handshake comes before the response', async () => {
    const port = await listen(httpServer(50));
    const sample = await runProbe(parseProbeSpec(`real=http://127.0.0.1:${port}/`), SLOW_MACHINE_TIMEOUT_MS);
    expect(sample.ok).toBe(true);
    expect(sample.connectMs).toBeGreaterThanOrEqual(0);
    expect(sample.responseMs).toBeGreaterThanOrEqual(sample.connectMs!);
  });

  test('every HTTP probe opens a fresh connection', async () => {
    const server = httpServer(0);
    let connections = 0;
    server.on('connection', () => connections++);
    const spec = parseProbeSpec(`p=http://127.0.0.1:${await listen(server)}/`);
    for (let i = 0; i < 3; i++) expect((await runProbe(spec, SLOW_MACHINE_TIMEOUT_MS)).ok).toBe(true);
    expect(connections).toBe(3);
  });

  test('a closed port fails with ECONNREFUSED and no timings', async () => {
    for (const scheme of ['tcp', 'http']) {
      const sample = await runProbe(parseProbeSpec(`gone=${scheme}://127.0.0.1:${await closedPort()}`), SLOW_MACHINE_TIMEOUT_MS);
      expect(sample).toMatchObject({ ok: false, connectMs: null, responseMs: null });
      expect(sample.error).toMatch(/ECONNREFUSED/);
      expect(probeSampleSchema.safeParse(sample).success).toBe(true);
    }
  });

  test('a server that accepts but never answers times out with the connect time kept', async () => {
    // The server holds its answer for longer than the test may run: only the probe's own timeout can end it.
    const port = await listen(httpServer(3_600_000));
    const sample = await runProbe(parseProbeSpec(`hung=http://127.0.0.1:${port}/`), 150);
    expect(sample).toMatchObject({ ok: false, responseMs: null, error: 'timed out after 150 ms' });
    expect(sample.connectMs).not.toBeNull();
  });

  test('an HTTP 503 answer is a failed probe that still reports its timings', async () => {
    const port = await listen(httpServer(0, 503));
    const sample = await runProbe(parseProbeSpec(`down=http://127.0.0.1:${port}/`), SLOW_MACHINE_TIMEOUT_MS);
    expect(sample).toMatchObject({ ok: false, error: 'HTTP 503' });
    expect(sample.responseMs).not.toBeNull();
  });

  test('an https probe to a plain-HTTP port fails with the TLS error instead of throwing', async () => {
    const port = await listen(httpServer(0));
    const sample = await runProbe(parseProbeSpec(`tls=https://127.0.0.1:${port}/`), SLOW_MACHINE_TIMEOUT_MS);
    expect(sample.ok).toBe(false);
    expect(sample.connectMs).not.toBeNull();
    expect(sample.error).toMatch(/SSL|TLS|EPROTO|wrong version/i);
  });
});

describe('createProbeCollector', () => {
  test('runs all probes concurrently: each server answers only once all three requests have arrived', async () => {
    const waiting: http.ServerResponse[] = [];
    const barrier = () =>
      http.createServer((_req, res) => {
        waiting.push(res);
        if (waiting.length === 3) for (const held of waiting) held.writeHead(200).end('ok');
      });
    const specs = await Promise.all(['a', 'b', 'c'].map(async (name) => parseProbeSpec(`${name}=http://127.0.0.1:${await listen(barrier())}/`)));
    // One at a time, the first probe would wait for the others forever and time out.
    const collector = createProbeCollector(specs, { intervalMs: 3_600_000, timeoutMs: SLOW_MACHINE_TIMEOUT_MS });
    const samples = await collector.collect({ procRoot: '/proc', sysRoot: '/sys', nowMs: 0, watched: [] });
    expect(samples.map((s) => [s.name, s.ok])).toEqual([['a', true], ['b', true], ['c', true]]);
  });

  test('keeps the probe timeout below the interval even when asked for more', async () => {
    expect(probeTimeoutMsFor(250)).toBe(200);
    expect(probeTimeoutMsFor(10_000)).toBe(5000);
    expect(probeTimeoutMsFor(10)).toBe(50);
    const port = await listen(httpServer(3_600_000));
    const collector = createProbeCollector([parseProbeSpec(`hung=http://127.0.0.1:${port}/`)], { intervalMs: 250, timeoutMs: 60_000 });
    const [sample] = await collector.collect({ procRoot: '/proc', sysRoot: '/sys', nowMs: 0, watched: [] });
    expect(sample!.error).toBe('timed out after 200 ms');
  });
});
