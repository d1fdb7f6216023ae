import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import type { NextConfig } from 'next';
import { SECURITY_HEADERS, withSecurityHeaders } from '../../../lib/server/security-headers';

const EXPECTED = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

describe('security headers', () => {
  test('every response of a listener wrapped as server.ts wraps it carries them, writeHead headers or not', async () => {
    const server = http.createServer(
      withSecurityHeaders((req, res) => {
        if (req.url === '/redirect') res.writeHead(302, { Location: '/sign-in' }).end();
        else res.writeHead(202, { 'Content-Type': 'application/json' }).end('{}');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const [path, method] of [['/api/v1/ingest', 'POST'], ['/redirect', 'GET']] as const) {
        const response = await fetch(`${base}${path}`, { method, redirect: 'manual' });
        for (const [name, value] of Object.entries(EXPECTED)) expect(response.headers.get(name), `${name} on ${path}`).toBe(value);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('next.config.js sends the same ones on every path (for next dev)', async () => {
    // By a computed path: next.config.js has no types of its own.
    const configPath = '../../../next.config.js';
    const nextConfig = ((await import(configPath)) as { default: NextConfig }).default;
    const rules = (await nextConfig.headers?.()) ?? [];
    expect(rules).toEqual([{ source: '/:path*', headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })) }]);
    expect(Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([k, v]) => [k.toLowerCase(), v]))).toEqual(EXPECTED);
  });
});
