import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLIENT_ADDRESS_HEADER, stampClientAddress, trustProxies } from '@/lib/http/client-address';
import { parseServerEnvironment } from '@/lib/server/environment';

// A real listener: the address comes from a real socket (127.0.0.1) and the header a client sends.
let server: http.Server;
let url: string;
let addressOf = trustProxies([]);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    stampClientAddress(req, addressOf);
    res.end(req.headers[CLIENT_ADDRESS_HEADER]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function seenAs(proxies: string[], forwardedFor?: string): Promise<string> {
  addressOf = trustProxies(proxies);
  const response = await fetch(url, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
  return response.text();
}

test('with no trusted proxy the socket is the client, whatever X-Forwarded-For says', async () => {
  expect(await seenAs([], '203.0.113.9')).toBe('127.0.0.1');
});

test('behind a trusted proxy the client is the nearest untrusted address the proxies forwarded', async () => {
  expect(await seenAs(['loopback'], '203.0.113.9')).toBe('203.0.113.9');
  // The client wrote the first entry itself; the proxy appended the address it saw.
  expect(await seenAs(['loopback'], '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
  expect(await seenAs(['127.0.0.1', '203.0.113.0/24'], '198.51.100.1, 203.0.113.9')).toBe('198.51.100.1');
  expect(await seenAs(['loopback'])).toBe('127.0.0.1');
});

test('a peer that is not a trusted proxy cannot choose its address', async () => {
  expect(await seenAs(['10.0.0.0/8'], '203.0.113.9')).toBe('127.0.0.1');
});

test('INFERWATCH_TRUSTED_PROXIES takes addresses, ranges and names, and refuses anything else by name', () => {
  expect(parseServerEnvironment({ INFERWATCH_TRUSTED_PROXIES: '10.0.0.5, 10.1.0.0/16,loopback' }).trustedProxies).toEqual([
    '10.0.0.5',
    '10.1.0.0/16',
    'loopback',
  ]);
  expect(parseServerEnvironment({}).trustedProxies).toEqual([]);
  expect(() => parseServerEnvironment({ INFERWATCH_TRUSTED_PROXIES: '10.0.0.5,proxy.internal' })).toThrow(/INFERWATCH_TRUSTED_PROXIES/);
});
