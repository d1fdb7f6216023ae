import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScrapeError, fetchExposition, parseScrapeTarget } from '../../../../agent/scrape/target';
import { isLoopbackHost } from '../../../../lib/protocol/loopback';

let server: http.Server;
let base: string;
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/metrics':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        return void res.end('up 1\n');
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        // No content-length: the limit must hold while the body streams in.
        for (let i = 0; i < 64; i++) res.write(`pad_${i} ${'1'.repeat(1000)}\n`);
        return void res.end();
      case '/declared-big':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 * 1024) });
        return void res.end();
      case '/openmetrics':
        res.writeHead(200, { 'content-type': 'application/openmetrics-text; version=1.0.0' });
        return void res.end('# EOF\n');
      case '/redirect':
        res.writeHead(302, { location: '/metrics' });
        return void res.end();
      case '/never':
        // Headers, then silence: only the time limit ends it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('up 1\n');
        return void held.push(res);
      default:
        res.writeHead(500);
        return void res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const limits = { timeoutMs: 2000, maxBytes: 16 * 1024 };

describe('fetchExposition', () => {
  test('returns the text of a 200 in the text format', async () => {
    expect(await fetchExposition(new URL(`${base}/metrics`), limits)).toBe('up 1\n');
  });

  test.each([
    ['a body over the limit while it streams', '/big', /body exceeds the limit of 16384 bytes/],
    ['a declared body over the limit', '/declared-big', /body of 10485760 bytes exceeds the limit of 16384/],
    ['another format', '/openmetrics', /content type application\/openmetrics-text, expected the text format/],
    ['a redirect, which it does not follow', '/redirect', /HTTP 302/],
    ['a server error', '/error', /HTTP 500/],
  ])('refuses %s', async (_what, path, message) => {
    const fetching = fetchExposition(new URL(`${base}${path}`), limits);
    await expect(fetching).rejects.toThrow(ScrapeError);
    await expect(fetching).rejects.toThrow(message);
  });

  test('gives up on an answer that never completes at the time limit', async () => {
    await expect(fetchExposition(new URL(`${base}/never`), { ...limits, timeoutMs: 300 })).rejects.toThrow('no complete answer within 300 ms');
  });
});

describe('scrape targets', () => {
  test('loopback is 127.0.0.0/8, ::1 and localhost; anything else needs --scrape-allow-remote', () => {
    expect(['127.0.0.1', '127.3.2.1', '[::1]', 'localhost', 'LOCALHOST', 'api.localhost'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.5', '0.0.0.0', '::', 'gpu-1', 'localhost.example.com', '128.0.0.1'].some(isLoopbackHost)).toBe(false);
    expect(() => parseScrapeTarget('tgi=http://gpu-1:3000/metrics', false)).toThrow(/add --scrape-allow-remote/);
    expect(parseScrapeTarget('tgi=http://gpu-1:3000/metrics', true).url.host).toBe('gpu-1:3000');
  });

  test('names are short and plain, URLs http(s) without credentials', () => {
    expect(() => parseScrapeTarget('=http://127.0.0.1/metrics', false)).toThrow(/the name must be/);
    expect(() => parseScrapeTarget('a b=http://127.0.0.1/metrics', false)).toThrow(/the name must be/);
    expect(() => parseScrapeTarget('a=http://user:pw@127.0.0.1/metrics', false)).toThrow(/credentials/);
    expect(parseScrapeTarget('vllm-0.main=http://127.0.0.1:8000/metrics', false)).toMatchObject({ name: 'vllm-0.main' });
  });
});
