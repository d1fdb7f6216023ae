import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Sent with every response of the custom server: pages, API routes, the sign-in redirect and the ingest listener
 * (which skips Next). What Next serves gets a fuller policy, with scripts, from allowScriptsByNonce.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

/** The listener, with SECURITY_HEADERS set before it runs (a handler may still override one for its own response). */
export function withSecurityHeaders(listener: Listener): Listener {
  return (req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    listener(req, res);
  };
}

const BASE_POLICY = SECURITY_HEADERS['Content-Security-Policy']!;

/**
 * The policy of a response Next renders: scripts only when they carry this response's nonce or were loaded by one that
 * does ('strict-dynamic'), so markup that slipped into a page could not run a script; styles and images from this
 * origin (inline styles too: charts and the theme set them). `npm run dev` adds 'unsafe-eval' for hot reload.
 */
export function pagePolicy(nonce: string, dev: boolean): string {
  return [
    BASE_POLICY,
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
  ].join('; ');
}

/**
 * Gives this request a fresh nonce: on the response's policy, and on the request's own Content-Security-Policy header,
 * where Next's renderer reads the nonce for the scripts it writes (any such header the client sent is replaced).
 */
export function allowScriptsByNonce(req: IncomingMessage, res: ServerResponse, dev: boolean): void {
  const policy = pagePolicy(randomBytes(16).toString('base64'), dev);
  req.headers['content-security-policy'] = policy;
  res.setHeader('Content-Security-Policy', policy);
}

/** The nonce of a policy pagePolicy wrote; null when there is none (a request that did not pass through server.ts). */
export function nonceOf(policy: string | null): string | null {
  return policy?.match(/'nonce-([A-Za-z0-9+/=]+)'/)?.[1] ?? null;
}
