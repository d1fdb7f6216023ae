import type { AuthenticatedHost } from '../auth/host-token-cache';
import { bearerToken } from '../auth/tokens';
import { DatabaseUnavailableError, toErrorEnvelope } from '../errors';
import type { IngestResponse } from '../protocol';
import { checkContentType, decodeBody, parseJson } from './validate/decode-body';
import type { IngestMetrics } from './ingest-metrics';
import type { IngestLimits } from './limits';
import type { HostRateLimiter } from './rate-limit';
import { validateReports } from './validate/validate-reports';
import type { ReportWriter, WriteResult } from './write/writer';

/** Reads the request body, refusing it (413) as soon as it passes `maxBytes`. */
export type BodyReader = (maxBytes: number) => Promise<Buffer>;

export interface IngestInput {
  authorization: string | null | undefined;
  contentEncoding: string | null | undefined;
  contentType: string | null | undefined;
  /** The body, or how to read it: a transport passes a reader, so nothing is read before the token is checked. */
  body: Buffer | BodyReader;
}

export interface IngestOutput {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IngestDeps {
  authenticate(token: string | null): Promise<AuthenticatedHost>;
  writer: ReportWriter;
  rateLimiter: HostRateLimiter;
  limits: IngestLimits;
  nowMs(): number;
  /** Trips on "database unavailable" so that the next requests get 503 at once instead of waiting on a dead server. */
  breaker: UnavailableBreaker;
  metrics: IngestMetrics;
  /** Told the host once its reports are stored (the alert engine evaluates it soon after); must not block. */
  onStored?: (hostId: number) => void;
}

/** The breaker's own 503: it must not trip the breaker again (see answer()). */
class BreakerOpenError extends DatabaseUnavailableError {}

export class UnavailableBreaker {
  private openUntilMs = 0;
  constructor(private readonly openForMs = 2_000) {}
  check(nowMs: number): void {
    if (nowMs < this.openUntilMs) throw new BreakerOpenError();
  }
  trip(nowMs: number): void {
    this.openUntilMs = nowMs + this.openForMs;
  }
}

interface Submitted {
  written: Promise<WriteResult>;
  acknowledgedSeqs: number[];
}

/**
 * Decodes, validates and hands the reports to the writer, synchronously: the parsed body and its reports are
 * garbage once this returns, instead of living in the awaiting request's frame until its flush commits.
 */
function submit(input: IngestInput & { body: Buffer }, deps: IngestDeps, hostId: number): Submitted {
  const nowMs = deps.nowMs();
  const json = parseJson(decodeBody(input.body, input.contentEncoding, deps.limits));
  const reports = validateReports(json, { nowMs, maxFutureMs: deps.limits.maxFutureMs, maxAgeMs: deps.limits.maxAgeMs });
  // Before the rate limit: a report the breaker refuses must not cost its host's budget for when it is sent again.
  deps.breaker.check(nowMs);
  deps.rateLimiter.takeReports(hostId, reports.length, nowMs);
  return { written: deps.writer.write({ hostId, reports }), acknowledgedSeqs: reports.map((r) => r.seq) };
}

async function accept(input: IngestInput, deps: IngestDeps): Promise<IngestOutput> {
  const host = await deps.authenticate(bearerToken(input.authorization));
  deps.rateLimiter.takeRequest(host.id, deps.nowMs());
  checkContentType(input.contentType);
  const raw = typeof input.body === 'function' ? await input.body(deps.limits.maxCompressedBytes) : input.body;
  const { written, acknowledgedSeqs } = submit({ ...input, body: raw }, deps, host.id);
  const result = await written;
  if (result.acceptedSeqs.length > 0) deps.onStored?.(host.id);
  const body: IngestResponse = {
    accepted: result.acceptedSeqs.length,
    duplicate: result.duplicateSeqs.length,
    acknowledgedSeqs,
  };
  return { status: 200, body, headers: {} };
}

/** POST /api/v1/ingest, independent of the transport: the Next route and the node:http listener both call this. */
export async function ingestRequest(input: IngestInput, deps: IngestDeps): Promise<IngestOutput> {
  const started = performance.now();
  const output = await answer(input, deps);
  deps.metrics.observeRequest(output, (performance.now() - started) / 1000);
  return output;
}

async function answer(input: IngestInput, deps: IngestDeps): Promise<IngestOutput> {
  try {
    return await accept(input, deps);
  } catch (err) {
    const { status, body, headers } = toErrorEnvelope(err);
    // Only the database's own failures trip it: were its refusals to trip it too, reports arriving more often than
    // once per openForMs (a fleet's do) would keep it open for good after one failed flush.
    if (status === 503 && !(err instanceof BreakerOpenError)) deps.breaker.trip(deps.nowMs());
    return { status, body, headers: headers ?? {} };
  }
}
