import { toErrorEnvelope } from '../errors';
import { encodeBinaryTuples } from './copy-binary';
import { checkContentType, decodeBody, parseJson } from './decode-body';
import type { IngestLimits } from './limits';
import { appendReportRows, emptyRowBatch } from './report-rows';
import { SERIES_KINDS, SERIES_SPECS } from './table-specs';
import { validateReports } from './validate-reports';
import type { EncodedRows, ReportMeta } from './write-plan';

export interface DecodeInput {
  hostId: number;
  body: Uint8Array;
  contentEncoding: string | null | undefined;
  contentType: string | null | undefined;
  nowMs: number;
  limits: IngestLimits;
}

export type DecodeOutput =
  | { ok: true; reports: ReportMeta[]; encoded: EncodedRows }
  | { ok: false; status: number; body: unknown; headers: Record<string, string> };

/**
 * Body → validated reports → their rows as COPY BINARY tuples, in one pure step a worker thread can run: only the
 * metadata and one byte array go back to the main thread, never the report objects.
 */
export function decodeRequest(input: DecodeInput): DecodeOutput {
  try {
    checkContentType(input.contentType);
    const body = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
    const json = parseJson(decodeBody(body, input.contentEncoding, input.limits));
    const reports = validateReports(json, { nowMs: input.nowMs, maxFutureMs: input.limits.maxFutureMs, maxAgeMs: input.limits.maxAgeMs });
    const perReport = reports.map((report) => {
      const batch = emptyRowBatch();
      appendReportRows(batch, input.hostId, report);
      return batch;
    });
    const parts: Buffer[] = [];
    const tables: EncodedRows['tables'] = {};
    let offset = 0;
    for (const kind of SERIES_KINDS) {
      const start = offset;
      const ends = perReport.map((batch) => {
        if (batch[kind].values.length > 0) {
          const bytes = encodeBinaryTuples(batch[kind], SERIES_SPECS[kind].types);
          parts.push(bytes);
          offset += bytes.length;
        }
        return offset;
      });
      if (offset > start) tables[kind] = { start, ends };
    }
    const data = new Uint8Array(offset);
    let at = 0;
    for (const part of parts) {
      data.set(part, at);
      at += part.length;
    }
    const meta = reports.map((r) => (r.inventory ? { seq: r.seq, ts: r.ts, inventory: r.inventory } : { seq: r.seq, ts: r.ts }));
    return { ok: true, reports: meta, encoded: { data, tables } };
  } catch (err) {
    const { status, body, headers } = toErrorEnvelope(err);
    return { ok: false, status, body, headers: headers ?? {} };
  }
}
