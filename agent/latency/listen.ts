import type http from 'node:http';

/** A loopback intake that listens: the port it got (0 asks for any free one) and how to stop it. */
export interface ListeningIntake {
  port: number;
  close(): Promise<void>;
}

/** Binds `server` and resolves once it listens, or rejects with the bind error (EADDRINUSE, EACCES). */
export function listenIntake(server: http.Server, host: string, port: number): Promise<ListeningIntake> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
