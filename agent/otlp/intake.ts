import http from 'node:http';
import zlib from 'node:zlib';
import type { Logger } from '../log';
import { BodyTooLargeError, readRequestBody } from '../latency/request-body';
import { listenIntake, type ListeningIntake } from '../latency/listen';
import type { OtlpAccumulator } from './accumulator';
import { decodeJsonRequest, decodeProtobufRequest, encodeResponse, encodeStatus, type OtlpRequest } from './wire';

/** Compressed and after decompression: an SDK's export of a few hundred histograms is well under 1 MiB. */
export const MAX_OTLP_BODY_BYTES = 4 * 1024 * 1024;

export type OtlpIntake = ListeningIntake;

export interface OtlpIntakeOptions {
  host?: string;
  port?: number;
  accumulator: OtlpAccumulator;
  log: Logger;
}

type Encoding = 'protobuf' | 'json';

class OtlpHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * OTLP/HTTP metrics on loopback (`POST /v1/metrics`, the OpenTelemetry default port 4318): binary protobuf or JSON,
 * optionally gzip-compressed, answered as the specification says — 200 with an ExportMetricsServiceResponse (naming
 * rejected points as a partial success), 400 with a google.rpc.Status for a body that cannot be read, which senders
 * do not retry. As with the JSON timings intake, only a content type a browser must preflight is accepted.
 */
export function startOtlpIntake({ host = '127.0.0.1', port = 4318, accumulator, log }: OtlpIntakeOptions): Promise<OtlpIntake> {
  let loggedReason: string | null = null;
  const server = http.createServer((req, res) => {
    const encoding: Encoding = contentType(req) === 'application/json' ? 'json' : 'protobuf';
    handle(req)
      .then((request) => {
        const result = accumulator.accept(request);
        if (result.reason !== null && result.reason !== loggedReason) {
          log.warn('otlp: data points refused', { rejected: result.rejected, why: result.reason });
        }
        loggedReason = result.reason;
        send(res, 200, encoding, encodeResponse(result.rejected, result.reason ?? '', encoding));
      })
      .catch((err: unknown) => {
        const error = err instanceof OtlpHttpError ? err : new OtlpHttpError(500, 'internal error');
        send(res, error.status, encoding, encodeStatus(error.status, error.message, encoding));
      });
  });
  return listenIntake(server, host, port);
}

const contentType = (req: http.IncomingMessage) => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

async function handle(req: http.IncomingMessage): Promise<OtlpRequest> {
  if (req.url?.split('?')[0] !== '/v1/metrics') throw new OtlpHttpError(404, 'only POST /v1/metrics exists here (metrics, not traces or logs)');
  if (req.method !== 'POST') throw new OtlpHttpError(405, 'use POST');
  const type = contentType(req);
  if (type !== 'application/x-protobuf' && type !== 'application/json') {
    throw new OtlpHttpError(415, 'send application/x-protobuf or application/json (OTLP/HTTP)');
  }
  const raw = await readRequestBody(req, MAX_OTLP_BODY_BYTES).catch((err: unknown) => {
    throw err instanceof BodyTooLargeError ? new OtlpHttpError(413, err.message) : err;
  });
  const body = decompress(raw, (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase());
  try {
    return type === 'application/json' ? decodeJsonRequest(JSON.parse(body.toString('utf8'))) : decodeProtobufRequest(body);
  } catch (err) {
    throw new OtlpHttpError(400, `not an ExportMetricsServiceRequest: ${(err as Error).message}`);
  }
}

function decompress(body: Buffer, encoding: string): Buffer {
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip') throw new OtlpHttpError(415, `content-encoding "${encoding.slice(0, 40)}" is not supported (gzip or none)`);
  try {
    return zlib.gunzipSync(body, { maxOutputLength: MAX_OTLP_BODY_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new OtlpHttpError(413, `body exceeds ${MAX_OTLP_BODY_BYTES} bytes once decompressed`);
    throw new OtlpHttpError(400, `body is not gzip: ${(err as Error).message}`);
  }
}

function send(res: http.ServerResponse, status: number, encoding: Encoding, body: Buffer): void {
  if (res.headersSent) return;
  const headers: http.OutgoingHttpHeaders = { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' };
  // After refusing a body we did not read, the connection cannot be reused.
  if (status === 413) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}
