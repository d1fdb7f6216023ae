import http from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

export interface PostAnswer {
  /** 0 when no answer arrived (refused, reset, timed out). */
  status: number;
  body: unknown;
  retryAfterMs: number | null;
  error: string | null;
}

/** How the demo reaches the server: as an agent does, over HTTP with a bearer token. */
export type DemoPost = (path: string, body: unknown, bearer: string, options: { gzip: boolean }) => Promise<PostAnswer>;

const gzipAsync = promisify(gzip);

/** Retry-After in delay-seconds, as the ingest API sends it. */
export function retryAfterMsOf(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  const seconds = value === undefined ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

/** POSTs JSON to the server at `baseUrl`, gzipped where asked (ingest takes gzip; the enroll route reads plain JSON). */
export function httpPoster(baseUrl: string, options: { timeoutMs?: number; maxSockets?: number } = {}): DemoPost {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 4 });
  const timeoutMs = options.timeoutMs ?? 30_000;
  return async (path, body, bearer, { gzip: compress }) => {
    const json = Buffer.from(JSON.stringify(body));
    const payload = compress ? await gzipAsync(json) : json;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      authorization: `Bearer ${bearer}`,
      'content-length': String(payload.length),
      ...(compress ? { 'content-encoding': 'gzip' } : {}),
    };
    return new Promise<PostAnswer>((resolve) => {
      const failed = (err: Error) => resolve({ status: 0, body: null, retryAfterMs: null, error: err.message });
      const req = http.request(new URL(path, baseUrl), { method: 'POST', headers, agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', failed);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, retryAfterMs: retryAfterMsOf(res.headers['retry-after']), error: null });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', failed);
      req.end(payload);
    });
  };
}
