import { BinaryWriter, writeBinaryTuples } from '../../lib/ingest/write/group-commit/copy-binary';
import type { TableRows } from '../../lib/ingest/write/report-rows';
import type { ColumnType } from '../../lib/ingest/write/table-specs';

/** The rows' COPY BINARY tuples, without the file header and trailer. */
export function encodeBinaryTuples(rows: TableRows, types: readonly ColumnType[]): Buffer {
  const w = new BinaryWriter();
  writeBinaryTuples(w, rows, types);
  return w.written();
}
