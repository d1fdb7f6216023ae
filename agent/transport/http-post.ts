import http from 'node:http';

export interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  /** The Date header: the server's clock when it answered. */
  date: string | null;
  text: string;
}

export interface HttpPostInput {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  timeoutMs: number;
}

export class HttpPostError extends Error {
  constructor(
    message: string,
    /** The system error code (ECONNREFUSED, ETIMEDOUT, …) when there is one. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

// node:http instead of fetch: fetch loads undici (and compiles its llhttp wasm), more resident memory and more CPU
// per request, for a client that sends one small POST per interval.
/** One POST; resolves with any HTTP answer, rejects with HttpPostError when no answer arrived. */
export async function httpPost(input: HttpPostInput): Promise<HttpAnswer> {
  const url = new URL(input.url);
  const transport: typeof http = url.protocol === 'https:' ? ((await import('node:https')).default as unknown as typeof http) : http;
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => reject(new HttpPostError(err.message, (err as NodeJS.ErrnoException).code));
    const req = transport.request(url, { method: 'POST', headers: input.headers, timeout: input.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: retryAfter ?? null,
          date: res.headers.date ?? null,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${input.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', fail);
    req.end(input.body);
  });
}
