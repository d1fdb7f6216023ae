import type { IncomingMessage } from 'node:http';

/**
 * The peer address of a request, as the custom server saw its socket. Route handlers see only headers, and Next keeps
 * an X-Forwarded-For the client sent itself, so server.ts writes this header on every request, over any sent value.
 */
export const CLIENT_ADDRESS_HEADER = 'x-inferwatch-client-address';

export function stampClientAddress(req: IncomingMessage): void {
  req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? 'unknown';
}

/** The stamped address; without server.ts (next dev, a test calling a route) every request shares "unknown". */
export function clientAddressOf(headers: Headers): string {
  return headers.get(CLIENT_ADDRESS_HEADER) ?? 'unknown';
}
