import { BinaryWriter, writeBinaryTuples, writeCopyBinaryFrame } from '../lib/ingest/write/group-commit/copy-binary';
import { pgArrayLiteral } from '../lib/ingest/write/pg-array';
import { appendReportRows, emptyRowBatch, type CellValue, type RowBatch, type TableRows } from '../lib/ingest/write/report-rows';
import { SERIES_KINDS, type ColumnType } from '../lib/ingest/write/table-specs';
import type { Report } from '../lib/protocol';

// How ingest encodes rows, for the benchmark's COPY comparisons and the tests: production appends to one batch.

const NEEDS_ESCAPE = /[\\\n\r\t]/;

// COPY text format: backslash, newline, carriage return and tab must be escaped; \N is NULL.
function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

function encodeCell(value: CellValue): string {
  if (value === null) return '\\N';
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'string':
      return escapeText(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return escapeText(pgArrayLiteral(value));
  }
}

/** The rows as COPY … FROM STDIN text: one line per row, tab-separated. */
export function toCopyText(rows: TableRows): string {
  const { width, values } = rows;
  let out = '';
  for (let i = 0; i < values.length; i += width) {
    let line = encodeCell(values[i]!);
    for (let c = 1; c < width; c++) line += '\t' + encodeCell(values[i + c]!);
    out += line + '\n';
  }
  return out;
}

/** The rows as COPY BINARY data: no number formatting here, no number parsing in PostgreSQL. */
export function toCopyBinary(rows: TableRows, types: readonly ColumnType[]): Buffer {
  const w = new BinaryWriter();
  writeCopyBinaryFrame(w, () => writeBinaryTuples(w, rows, types));
  return w.written();
}

export function reportToRows(hostId: number, report: Report): RowBatch {
  const batch = emptyRowBatch();
  appendReportRows(batch, hostId, report);
  return batch;
}

export function rowCount(rows: TableRows): number {
  return rows.values.length / rows.width;
}

export function totalRowCount(batch: RowBatch): number {
  let total = 0;
  for (const kind of SERIES_KINDS) total += rowCount(batch[kind]);
  return total;
}
