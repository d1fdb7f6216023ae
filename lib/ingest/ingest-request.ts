import type { AuthenticatedHost } from '../auth/host-token-cache';
import { bearerToken } from '../auth/tokens';
import { DatabaseUnavailableError, toErrorEnvelope } from '../errors';
import type { IngestResponse } from '../protocol';
import { checkContentType, decodeBody, parseJson } from './decode-body';
import type { IngestLimits } from './limits';
import type { HostRateLimiter } from './rate-limit';
import { validateReports } from './validate-reports';
import type { ReportWriter } from './write-plan';

export interface IngestInput {
  authorization: string | null | undefined;
  contentEncoding: string | null | undefined;
  contentType: string | null | undefined;
  body: Buffer;
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
}

export class UnavailableBreaker {
  private openUntilMs = 0;
  constructor(private readonly openForMs = 2_000) {}
  check(nowMs: number): void {
    if (nowMs < this.openUntilMs) throw new DatabaseUnavailableError();
  }
  trip(nowMs: number): void {
    this.openUntilMs = nowMs + this.openForMs;
  }
}

async function accept(input: IngestInput, deps: IngestDeps): Promise<IngestResponse> {
  const host = await deps.authenticate(bearerToken(input.authorization));
  deps.rateLimiter.takeRequest(host.id, deps.nowMs());
  checkContentType(input.contentType);
  const json = parseJson(decodeBody(input.body, input.contentEncoding, deps.limits));
  const nowMs = deps.nowMs();
  const reports = validateReports(json, { nowMs, maxFutureMs: deps.limits.maxFutureMs, maxAgeMs: deps.limits.maxAgeMs });
  deps.rateLimiter.takeReports(host.id, reports.length, nowMs);
  deps.breaker.check(nowMs);
  const result = await deps.writer.write({ hostId: host.id, reports });
  return {
    accepted: result.acceptedSeqs.length,
    duplicate: result.duplicateSeqs.length,
    acknowledgedSeqs: reports.map((r) => r.seq),
  };
}

/** POST /api/v1/ingest, independent of the transport: the Next route and the node:http listener both call this. */
export async function ingestRequest(input: IngestInput, deps: IngestDeps): Promise<IngestOutput> {
  try {
    return { status: 200, body: await accept(input, deps), headers: {} };
  } catch (err) {
    const { status, body, headers } = toErrorEnvelope(err);
    if (status === 503) deps.breaker.trip(deps.nowMs());
    return { status, body, headers: headers ?? {} };
  }
}
