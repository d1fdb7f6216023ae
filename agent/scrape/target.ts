import http from 'node:http';
import https from 'node:https';
import { isLoopbackHost } from '../../lib/protocol/loopback';

export interface ScrapeTarget {
  /** The operator's name for the server: the `scrape` tag of its series and its row in the server samples. */
  name: string;
  url: URL;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const FORMAT = 'expected NAME=http://127.0.0.1:PORT/metrics';

/** Parses `--scrape NAME=URL`; a URL off this machine needs `allowRemote`. */
export function parseScrapeTarget(text: string, allowRemote: boolean): ScrapeTarget {
  const fail = (why: string): never => {
    throw new Error(`invalid scrape target "${text}": ${why} (${FORMAT})`);
  };
  const eq = text.indexOf('=');
  if (eq === -1) fail('missing "="');
  const name = text.slice(0, eq).trim();
  const target = text.slice(eq + 1).trim();
  if (!NAME.test(name)) fail('the name must be 1–64 letters, digits, ".", "_" or "-"');
  if (target.length > 1000 || !URL.canParse(target)) fail('the URL does not parse');
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`unsupported scheme "${url.protocol}"`);
  if (url.username || url.password) fail('credentials in the URL are not supported');
  if (!allowRemote && !isLoopbackHost(url.hostname)) {
    fail(`${url.hostname} is not this machine's loopback; add --scrape-allow-remote to scrape other hosts`);
  }
  return { name, url };
}

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

export class ScrapeError extends Error {}

/**
 * GETs an exposition in the text format, within a time and size limit. Redirects are not followed: the operator
 * names the endpoint. Rejects with a ScrapeError saying why.
 */
export function fetchExposition(url: URL, limits: FetchLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (err: Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        request.destroy();
        reject(err instanceof ScrapeError ? err : new ScrapeError(err.message));
      } else resolve(text!);
    };
    const timer = setTimeout(() => finish(new ScrapeError(`no complete answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    const request = client.get(url, { headers: { accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1', 'accept-encoding': 'identity' }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return finish(new ScrapeError(`HTTP ${res.statusCode}`));
      }
      const type = (res.headers['content-type'] ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
      if (type !== 'text/plain' && type !== '') {
        res.resume();
        return finish(new ScrapeError(`content type ${type}, expected the text format (text/plain)`));
      }
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > limits.maxBytes) {
        res.resume();
        return finish(new ScrapeError(`body of ${declared} bytes exceeds the limit of ${limits.maxBytes}`));
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) return finish(new ScrapeError(`body exceeds the limit of ${limits.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () => finish(null, Buffer.concat(chunks).toString('utf8')));
      res.on('error', (err) => finish(err));
    });
    request.on('error', (err) => finish(err));
  });
}
