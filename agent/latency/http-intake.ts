import http from 'node:http';
import { z } from 'zod';
import { nameSchema, tagsSchema } from '../../lib/protocol';
import { SKETCH_MAX_VALUE_MS } from '../../lib/sketch';
import type { LatencyAggregator } from './aggregator';
import { listenIntake, type ListeningIntake } from './listen';
import { BodyTooLargeError, readRequestBody } from './request-body';

export const MAX_INTAKE_BODY_BYTES = 1024 * 1024;

const MAX_INTAKE_TIMINGS = 100_000;

const TIMING_FIELDS = ['name', 'valueMs', 'tags', 'sampleRate'] as const;

/** A misspelt field (`tag`, `sample_rate`) must be refused: dropped in silence, it would lose tags or skew counts. */
const unknownFields = (keys: readonly string[], known: string) =>
  `unknown field ${keys.map((k) => JSON.stringify(k)).join(', ')}; ${known}`;

export const timingsRequestSchema = z.strictObject(
  {
    timings: z
      .array(
        z.strictObject(
          {
            name: nameSchema,
            valueMs: z.number().min(0).max(SKETCH_MAX_VALUE_MS),
            tags: tagsSchema.default({}),
            sampleRate: z.number().gt(0).max(1).default(1),
          },
          { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownFields(issue.keys, `a timing has ${TIMING_FIELDS.join(', ')}`) : undefined) },
        ),
      )
      .max(MAX_INTAKE_TIMINGS),
  },
  {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return unknownFields(issue.keys, 'the body has only "timings"');
      if (issue.code === 'invalid_type' && !issue.path?.length) return 'the body must be { "timings": [ … ] }';
      return undefined;
    },
  },
);

export type HttpIntake = ListeningIntake;

export interface HttpIntakeOptions {
  host?: string;
  port?: number;
  aggregator: LatencyAggregator;
}

class IntakeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message);
  }
}

/**
 * `POST /v1/timings` on loopback: JSON `{ timings: [...] }` only. A web page open on the host can post text/plain (or a
 * form) to loopback without the browser asking first; application/json needs a CORS preflight, which this never grants.
 * StatsD lines go to the UDP listener.
 * Errors use the house envelope `{ error: { code, message, details } }`.
 */
export function startHttpIntake({ host = '127.0.0.1', port = 8126, aggregator }: HttpIntakeOptions): Promise<HttpIntake> {
  const server = http.createServer((req, res) => {
    handle(req, aggregator)
      .then((body) => send(res, 202, body))
      .catch((err: unknown) => {
        const error = err instanceof IntakeError ? err : new IntakeError(500, 'internal', 'internal error');
        send(res, error.status, { error: { code: error.code, message: error.message, details: error.details } });
      });
  });
  return listenIntake(server, host, port);
}

async function handle(req: http.IncomingMessage, aggregator: LatencyAggregator): Promise<object> {
  if (req.url?.split('?')[0] !== '/v1/timings') throw new IntakeError(404, 'not_found', 'only POST /v1/timings exists');
  if (req.method !== 'POST') throw new IntakeError(405, 'method_not_allowed', 'use POST');
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json') {
    throw new IntakeError(415, 'unsupported_media_type', 'send application/json ({ "timings": [...] }); StatsD lines go to the UDP port');
  }
  const body = await readRequestBody(req, MAX_INTAKE_BODY_BYTES).then(
    (bytes) => bytes.toString('utf8'),
    (err: unknown) => {
      throw err instanceof BodyTooLargeError ? tooLarge() : err;
    },
  );
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    throw new IntakeError(400, 'invalid_json', `body is not JSON: ${(err as Error).message}`);
  }
  const parsed = timingsRequestSchema.safeParse(json);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    const first = details[0];
    throw new IntakeError(400, 'invalid_payload', `invalid timings: ${first?.path || '(root)'}: ${first?.message}`, details);
  }
  let accepted = 0;
  for (const timing of parsed.data.timings) if (aggregator.record(timing)) accepted++;
  // A batch is refused whole when any entry is invalid, so nothing in an answered batch is malformed.
  return { accepted, dropped: parsed.data.timings.length - accepted, malformed: 0 };
}

function tooLarge(): IntakeError {
  return new IntakeError(413, 'payload_too_large', `body exceeds ${MAX_INTAKE_BODY_BYTES} bytes`);
}

function send(res: http.ServerResponse, status: number, body: object): void {
  if (res.headersSent) return;
  // After refusing a body we did not read, the connection cannot be reused.
  const headers = status === 413 ? { 'content-type': 'application/json', connection: 'close' } : { 'content-type': 'application/json' };
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}
