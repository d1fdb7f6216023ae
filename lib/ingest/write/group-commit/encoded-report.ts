import type { Report } from '../../../protocol';
import { BinaryWriter, writeBinaryTuples } from './copy-binary';
import { appendReportRows, emptyRowBatch } from '../report-rows';
import { SERIES_KINDS, SERIES_SPECS, type SeriesKind } from '../table-specs';
import type { ReportKey } from '../writer';

/**
 * A validated report as the server writer keeps it until its flush commits: its series rows already encoded as COPY
 * BINARY tuples, outside V8's heap, and only the fields the flush reads besides. The flush then only copies bytes,
 * instead of building and encoding the rows of every queued report at once on the event loop; and a value its column
 * cannot hold fails its own request as it arrives, not every request that would have shared its flush.
 */
export interface EncodedReport extends ReportKey {
  tuples: Buffer;
  /** Where each table's tuples end in `tuples`, in SERIES_KINDS order; each table starts where the one before ends. */
  tableEnds: readonly number[];
}

const KIND_INDEX = new Map(SERIES_KINDS.map((kind, i) => [kind, i]));
const scratch = new BinaryWriter(16_384);

/** Throws a RangeError for a value its column cannot hold, as the flush did before. */
export function encodeReport(hostId: number, report: Report): EncodedReport {
  const rows = emptyRowBatch();
  appendReportRows(rows, hostId, report);
  scratch.reset();
  const tableEnds: number[] = [];
  for (const kind of SERIES_KINDS) {
    writeBinaryTuples(scratch, rows[kind], SERIES_SPECS[kind].types);
    tableEnds.push(scratch.pos);
  }
  return {
    seq: report.seq,
    ts: report.ts,
    inventory: report.inventory,
    agent: { reportEveryMs: report.agent.reportEveryMs, version: report.agent.version },
    tuples: Buffer.from(scratch.written()),
    tableEnds,
  };
}

function tableRange(report: EncodedReport, kind: SeriesKind): [number, number] {
  const k = KIND_INDEX.get(kind)!;
  return [k === 0 ? 0 : report.tableEnds[k - 1]!, report.tableEnds[k]!];
}

export function hasTableRows(report: EncodedReport, kind: SeriesKind): boolean {
  const [start, end] = tableRange(report, kind);
  return end > start;
}

/** Appends the report's tuples for one table to `w` (nothing when it has no rows there). */
export function writeTableTuples(w: BinaryWriter, report: EncodedReport, kind: SeriesKind): void {
  const [start, end] = tableRange(report, kind);
  w.ensure(end - start);
  w.pos += report.tuples.copy(w.buf, w.pos, start, end);
}
