import { REPORT_LEDGER, SERIES_KINDS, TABLES, storedColumns, type Column, type ColumnType, type SeriesKind } from '../../series/tables';

export type { ColumnType, SeriesKind } from '../../series/tables';
export { SERIES_KINDS } from '../../series/tables';

/** A table as COPY and `unnest` write it: its columns in order, and each column's type. */
export interface TableSpec {
  table: string;
  columns: readonly string[];
  types: readonly ColumnType[];
}

function spec(table: string, all: readonly Column[]): TableSpec {
  const columns = all.filter((c) => !c.defaulted);
  return { table, columns: columns.map((c) => c.name), types: columns.map((c) => c.type) };
}

export const LEDGER = spec(REPORT_LEDGER.name, REPORT_LEDGER.columns);

export const SERIES_SPECS = Object.fromEntries(
  SERIES_KINDS.map((kind) => [kind, spec(TABLES[kind].name, storedColumns(TABLES[kind]))]),
) as Record<SeriesKind, TableSpec>;
