import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered. */
  status: number;
}

export type ReceiverMode = 'ok' | 'fail' | 'hang';

/**
 * A notification receiver on loopback. `ok` answers 200, `fail` 503, `hang` holds the request until release() or
 * close(); `stop()` closes the port (a receiver that is down refuses connections) and `start()` opens it again.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  mode: ReceiverMode = 'ok';
  private server: http.Server | null = null;
  private held: http.ServerResponse[] = [];
  port = 0;

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (this.mode === 'hang') {
          this.requests.push({ headers: req.headers, body, status: 0 });
          this.held.push(res);
          return;
        }
        const status = this.mode === 'ok' ? 200 : 503;
        this.requests.push({ headers: req.headers, body, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  get running(): boolean {
    return this.server !== null;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Answers the held requests with 200. */
  release(): void {
    for (const res of this.held.splice(0)) res.writeHead(200).end();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const res of this.held.splice(0)) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  accepted(): ReceivedRequest[] {
    return this.requests.filter((r) => r.status === 200);
  }
}

/** A clock tests move by hand. */
export class ManualClock {
  constructor(public ms: number) {}
  now = () => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}
