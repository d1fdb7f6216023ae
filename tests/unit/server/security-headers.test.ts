import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { allowScriptsByNonce, nonceOf, pagePolicy, withSecurityHeaders } from '../../../lib/server/security-headers';

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

  test('a page gets a fresh nonce on its policy and on the request Next renders it from, whatever the client sent', () => {
    const policies = [0, 1].map(() => {
      const req = { headers: { 'content-security-policy': "script-src 'unsafe-inline'" } } as unknown as IncomingMessage;
      const sent = new Map<string, string>();
      allowScriptsByNonce(req, { setHeader: (name: string, value: string) => sent.set(name, value) } as unknown as ServerResponse, false);
      expect(req.headers['content-security-policy']).toBe(sent.get('Content-Security-Policy'));
      return sent.get('Content-Security-Policy')!;
    });
    const [first, second] = policies.map(nonceOf);
    expect(first).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(second).not.toBe(first);
    expect(policies[0]).toContain(`script-src 'self' 'nonce-${first}' 'strict-dynamic';`);
    expect(policies[0]).toContain(EXPECTED['content-security-policy']);
    expect(policies[0]).not.toContain('unsafe-eval');
    expect(pagePolicy('n', true)).toContain("'unsafe-eval'");
    expect(nonceOf(null)).toBeNull();
  });
});
