import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { Resolver, TargetPolicy } from '../../lib/alerts/channels/target-policy';
import { createPoster, RESPONSE_BODY_LIMIT } from '../../lib/alerts/delivery/post';

const STRICT: TargetPolicy = { allowPrivate: false, allowedNetworks: [] };
const LOOPBACK_ALLOWED: TargetPolicy = { allowPrivate: false, allowedNetworks: [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' }] };
const servers: http.Server[] = [];

async function serve(handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A resolver answering `answers` in turn, one per call, and counting the calls. */
function resolver(...answers: string[]): Resolver & { calls: number } {
  const fn = ((_host, _options, callback) => {
    const address = answers[Math.min(fn.calls, answers.length - 1)]!;
    fn.calls += 1;
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress]);
  }) as Resolver & { calls: number };
  fn.calls = 0;
  return fn;
}

const request = (url: string) => ({ url, headers: { 'Content-Type': 'application/json' }, body: '{}' });
const signal = (ms = 5_000) => AbortSignal.timeout(ms);

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('sending to an alert channel', () => {
  test('the cloud metadata address and loopback are refused before any connection, literal or resolved', async () => {
    let hits = 0;
    const port = await serve((_req, res) => {
      hits += 1;
      res.end('secret');
    });
    const post = createPoster(STRICT, resolver('127.0.0.1'));
    await expect(post(request('http://169.254.169.254/latest/meta-data/'), signal())).rejects.toThrow(/^could not connect: target refused \(169\.254\.169\.254 is a link-local address\)$/);
    await expect(post(request(`http://127.0.0.1:${port}/`), signal())).rejects.toThrow(/could not connect: target refused/);
    await expect(post(request(`http://receiver.example:${port}/`), signal())).rejects.toThrow(/could not connect: target refused \(receiver\.example resolves to a loopback address\)/);
    expect(hits).toBe(0);
  });

  test('a name is resolved once and the connection goes to the address checked, Host kept (no rebinding between them)', async () => {
    const hosts: (string | undefined)[] = [];
    const port = await serve((req, res) => {
      hosts.push(req.headers.host);
      res.end('ok');
    });
    // Checked: 127.0.0.1 (allowed here). A second lookup would have answered the metadata address.
    const resolve = resolver('127.0.0.1', '169.254.169.254');
    const post = createPoster(LOOPBACK_ALLOWED, resolve);
    expect(await post(request(`http://receiver.example:${port}/hook`), signal())).toEqual({ status: 200, body: 'ok' });
    expect(resolve.calls).toBe(1);
    expect(hosts).toEqual([`receiver.example:${port}`]);
    // The next send resolves again, and is refused for what it gets.
    await expect(post(request(`http://receiver.example:${port}/hook`), signal())).rejects.toThrow(/resolves to a link-local address/);
    expect(hosts).toHaveLength(1);
  });

  test('a closed port and one that never answers the connection both read "could not connect"', async () => {
    const closedPort = await serve(() => {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const closed = await createPoster(LOOPBACK_ALLOWED)(request(`http://127.0.0.1:${closedPort}/`), signal()).catch((err: Error) => err.message);
    // A filtered port drops the SYN, so the connection is still being made when the attempt times out; a resolver
    // that never answers holds the attempt in the same place without depending on this machine's network.
    const never: Resolver = () => {};
    const filtered = await createPoster(LOOPBACK_ALLOWED, never)(request('http://filtered.example:9/'), signal(300)).catch((err: Error) => err.message);
    expect(closed).toBe('could not connect');
    expect(filtered).toBe('could not connect');
  });

  test('at most 4 KiB of a receiver’s answer is read', async () => {
    const port = await serve((_req, res) => {
      res.writeHead(200);
      res.end('x'.repeat(1024 * 1024));
    });
    const result = await createPoster(LOOPBACK_ALLOWED)(request(`http://127.0.0.1:${port}/`), signal());
    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(RESPONSE_BODY_LIMIT);
  });
});
