import type { IncomingMessage, ServerResponse } from 'node:http';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Sent with every response of the custom server: pages, API routes, the sign-in redirect and the ingest listener
 * (which skips Next, so Next's `headers()` alone would miss it). next.config.js repeats the list for `next dev`;
 * tests/unit/server/security-headers.test.ts holds the two to the same. No script-src: that needs per-request nonces
 * threaded through Next's rendering, not a static header.
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
