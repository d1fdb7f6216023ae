import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * The address a request came from, as the custom server saw it. Route handlers see only headers, and Next keeps an
 * X-Forwarded-For the client sent itself, so server.ts writes this header on every request, over any sent value.
 */
export const CLIENT_ADDRESS_HEADER = 'x-inferwatch-client-address';

/**
 * Which peers are the operator's proxies (INFERWATCH_TRUSTED_PROXIES). From a trusted peer, the client is the
 * nearest address in X-Forwarded-For that is not itself a trusted proxy; from any other peer, the peer is the client
 * and its X-Forwarded-For is ignored, so a client cannot choose the address its sign-in attempts are counted under.
 */
export function trustProxies(proxies: readonly string[]): (req: IncomingMessage) => string {
  if (proxies.length === 0) return (req) => req.socket.remoteAddress ?? 'unknown';
  const trusted = proxyaddr.compile([...proxies]);
  return (req) => (req.socket.remoteAddress === undefined ? 'unknown' : proxyaddr(req, trusted));
}

export function stampClientAddress(req: IncomingMessage, addressOf: (req: IncomingMessage) => string): void {
  req.headers[CLIENT_ADDRESS_HEADER] = addressOf(req);
}

/** The stamped address; without server.ts (next dev, a test calling a route) every request shares "unknown". */
export function clientAddressOf(headers: Headers): string {
  return headers.get(CLIENT_ADDRESS_HEADER) ?? 'unknown';
}
