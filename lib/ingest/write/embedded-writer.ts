import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { lateMinutesOf, markLateMinutes } from '../../series/late-minutes';
import { hostProgress, hostUpdateParams } from './host-progress';
import { RECORD_HOST_PROGRESS_SQL } from '../../hosts/store';
import { inventoryChanges, inventoryStatements } from './inventory';
import { pgArrayLiteral } from './pg-array';
import { planWrites, resultsByRequest } from './plan';
import { appendReportRows, emptyRowBatch, type CellValue, type TableRows } from './report-rows';
import { storageErrorFor } from './storage-errors';
import { SERIES_KINDS, SERIES_SPECS, type TableSpec } from './table-specs';
import type { ReportWriter, WriteRequest, WriteResult } from './writer';

const insertedRow = z.object({ seq: column.int8 });

// Array columns travel as text literals: unnest() of a 2-D array would flatten it.
function unnestInsertSql(spec: TableSpec): string {
  const names = spec.columns.map((_, i) => `c${i}`);
  const params = spec.types.map((type, i) => `$${i + 1}::${type.endsWith('[]') ? 'text' : type}[]`);
  const select = spec.types.map((type, i) => (type.endsWith('[]') ? `c${i}::${type}` : `c${i}`));
  return `INSERT INTO ${spec.table} (${spec.columns.join(', ')})
SELECT ${select.join(', ')} FROM unnest(${params.join(', ')}) AS u(${names.join(', ')})`;
}

const INSERT_SQL = new Map(SERIES_KINDS.map((kind) => [kind, unnestInsertSql(SERIES_SPECS[kind])]));

/** Row-major rows → one array per column, the shape `unnest($1, $2, …)` takes. */
export function toColumnArrays(rows: TableRows, spec: TableSpec): unknown[][] {
  const columns: unknown[][] = spec.columns.map(() => []);
  for (let i = 0; i < rows.values.length; i += rows.width) {
    for (let c = 0; c < rows.width; c++) {
      const value = rows.values[i + c] as CellValue;
      columns[c]!.push(Array.isArray(value) ? pgArrayLiteral(value) : value);
    }
  }
  return columns;
}

/**
 * Embedded PGlite has one connection and no COPY FROM STDIN: each request is one transaction of multi-row
 * `INSERT … SELECT FROM unnest(…)` statements, queued behind the others.
 */
export class EmbeddedWriter implements ReportWriter {
  constructor(private readonly sql: Sql) {}

  async write(request: WriteRequest): Promise<WriteResult> {
    try {
      return await this.sql.transaction((tx) => this.store(tx, request));
    } catch (err) {
      throw storageErrorFor(err);
    }
  }

  async close(): Promise<void> {}

  private async store(tx: Sql, request: WriteRequest): Promise<WriteResult> {
    const reports = request.reports;
    const plan = planWrites([request]);
    const inserted = await queryRows(
      tx,
      'report_ledger',
      insertedRow,
      `INSERT INTO report_ledger (host_id, seq, ts)
       SELECT * FROM unnest($1::int4[], $2::int8[], $3::timestamptz[])
       ON CONFLICT DO NOTHING RETURNING seq`,
      [
        plan.unique.map((e) => e.hostId),
        plan.unique.map((e) => e.report.seq),
        plan.unique.map((e) => new Date(e.report.ts).toISOString()),
      ],
    );
    const newSeqs = new Set(inserted.map((r) => r.seq));
    const isNew = plan.unique.map((e) => newSeqs.has(e.report.seq));
    const stored = plan.unique.filter((_, i) => isNew[i]);
    if (stored.length > 0) {
      const batch = emptyRowBatch();
      for (const { hostId, index } of stored) appendReportRows(batch, hostId, reports[index]!);
      for (const kind of SERIES_KINDS) {
        if (batch[kind].values.length === 0) continue;
        await tx.query(INSERT_SQL.get(kind)!, toColumnArrays(batch[kind], SERIES_SPECS[kind]));
      }
      await tx.query(RECORD_HOST_PROGRESS_SQL, hostUpdateParams(hostProgress(stored, Date.now())));
      for (const statement of inventoryStatements(inventoryChanges(stored))) await tx.query(statement.text, statement.params);
      await markLateMinutes(tx, lateMinutesOf(stored.map((e) => ({ hostId: e.hostId, ts: e.report.ts })), Date.now()));
    }
    return resultsByRequest(plan, isNew, 1)[0]!;
  }
}
