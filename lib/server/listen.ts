import http, { type Server } from 'node:http';

function listenFailure(err: NodeJS.ErrnoException, port: number, host: string): string {
  if (err.code === 'EADDRINUSE') {
    return `port ${port} on ${host} is taken — another inferwatch (or another program) listens there; stop it, or start this one with PORT=<another port>`;
  }
  if (err.code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0 for all`;
  return `cannot listen on ${host}:${port}: ${err.message}`;
}

/** Listens, or exits 1 with one line saying why (a second `npm start`, a HOST that is not this machine's). */
export function listenOrExit(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      console.error(`inferwatch: ${listenFailure(err, port, host)}`);
      process.exit(1);
    });
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
}

/** The same check before the slow part of a start (the database, Next): a taken port is said in a second, not a minute. */
export async function exitUnlessPortFree(port: number, host: string): Promise<void> {
  const probe = http.createServer();
  await listenOrExit(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
