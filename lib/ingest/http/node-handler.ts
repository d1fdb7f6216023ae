import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLargeError, toErrorEnvelope } from '../../errors';
import type { IngestInput, IngestOutput } from '../ingest-request';
import { NO_STORE } from '../../http/no-store';

/** Reads the body, refusing it as soon as it passes the limit (by Content-Length, or while it streams). */
function readBodyLimited(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      reject(new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > maxBytes) {
        // Stop reading: the answer closes the connection rather than draining the rest.
        req.removeAllListeners('data');
        req.pause();
        reject(new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length)));
    req.on('error', reject);
  });
}

// A refused request whose body was not read (it never had a valid token, or it is too large) gets its connection
// closed, instead of Node reading the rest of it only to throw it away.
function closeUnread(req: IncomingMessage, output: IngestOutput): IngestOutput {
  return output.status >= 400 && !req.complete ? { ...output, headers: { ...output.headers, Connection: 'close' } } : output;
}

function send(res: ServerResponse, output: IngestOutput): void {
  const payload = JSON.stringify(output.body);
  res.writeHead(output.status, {
    ...output.headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    ...NO_STORE,
  });
  res.end(payload);
}

export type IngestFn = (input: IngestInput) => Promise<IngestOutput>;

/** A node:http handler for POST /api/v1/ingest over an ingest function (the process's, or a test's or benchmark's own). */
export function createIngestHttpHandler(ingest: IngestFn) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        send(res, { status: 405, body: { error: { code: 'method_not_allowed', message: 'use POST' } }, headers: {} });
        return;
      }
      const output = await ingest({
        authorization: req.headers.authorization,
        contentEncoding: req.headers['content-encoding'],
        contentType: req.headers['content-type'],
        body: (maxBytes) => readBodyLimited(req, maxBytes),
      });
      send(res, closeUnread(req, output));
    } catch (err) {
      const { status, body, headers } = toErrorEnvelope(err);
      send(res, closeUnread(req, { status, body, headers: headers ?? {} }));
    }
  };
}
