import pg from 'pg';
import { ensurePartitions } from '../db/partitions';
import { poolSql } from '../db/sql';
import { DatabaseUnavailableError } from '../errors';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER, encodeBinaryTuples, toCopyBinary } from './copy-binary';
import { lateMinuteStatements } from './late-minutes-sql';
import { buildPipelinedMessage, runPipelinedCopy, type CopyInput } from './pipelined-copy';
import { appendReportRows, emptyRowBatch } from './report-rows';
import { isDataError, isLedgerConflict, isMissingPartition, isRetryableConflict, storageErrorFor } from './storage-errors';
import { LEDGER, SERIES_KINDS, SERIES_SPECS, type SeriesKind, type TableSpec } from './table-specs';
import {
  INSERT_INVENTORY_SQL,
  UPDATE_HOSTS_SQL,
  hostProgress,
  hostUpdateParams,
  inlineArrayParams,
  inventoryChanges,
  inventoryParams,
  planWrites,
  resultsByRequest,
  type PlannedReport,
  type ReportWriter,
  type WriteRequest,
  type WriteResult,
} from './write-plan';

export interface GroupCommitOptions {
  /** Flushes in flight at once; the calibration found 2 best on 2 cores. */
  maxFlushes?: number;
  maxReportsPerFlush?: number;
  /** Beyond this many queued reports new writes get 503 instead of waiting. */
  maxQueuedReports?: number;
  /** A flush taking longer (statement_timeout on the server, read timeout in pg) fails with 503. */
  queryTimeoutMs?: number;
}

interface Pending {
  request: WriteRequest;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

const copyStatement = (spec: TableSpec) => `COPY ${spec.table} (${spec.columns.join(', ')}) FROM STDIN (FORMAT binary)`;
const COPY_STATEMENTS = new Map(SERIES_KINDS.map((kind) => [kind, copyStatement(SERIES_SPECS[kind])]));

function ledgerCopy(stored: readonly PlannedReport[]): CopyInput {
  const values: number[] = [];
  for (const { hostId, report } of stored) values.push(hostId, report.seq, report.ts);
  return { statement: copyStatement(LEDGER), data: toCopyBinary({ width: 3, values }, LEDGER.types) };
}

/** Per table, the COPY BINARY data of the stored reports: pre-encoded tuples sliced out, the others encoded here. */
function seriesCopies(stored: readonly PlannedReport[], requests: readonly WriteRequest[]): CopyInput[] {
  const batch = emptyRowBatch();
  const chunks = new Map<SeriesKind, Uint8Array[]>(SERIES_KINDS.map((kind) => [kind, []]));
  for (const { hostId, request, index } of stored) {
    const source = requests[request]!;
    if (!source.encoded) {
      appendReportRows(batch, hostId, source.reports[index]!);
      continue;
    }
    const { data, tables } = source.encoded;
    for (const kind of SERIES_KINDS) {
      const table = tables[kind];
      if (!table) continue;
      const from = index === 0 ? table.start : table.ends[index - 1]!;
      if (table.ends[index]! > from) chunks.get(kind)!.push(data.subarray(from, table.ends[index]));
    }
  }
  const copies: CopyInput[] = [];
  for (const kind of SERIES_KINDS) {
    const parts = chunks.get(kind)!;
    if (batch[kind].values.length > 0) parts.push(encodeBinaryTuples(batch[kind], SERIES_SPECS[kind].types));
    if (parts.length > 0) {
      copies.push({ statement: COPY_STATEMENTS.get(kind)!, data: Buffer.concat([COPY_BINARY_HEADER, ...parts, COPY_BINARY_TRAILER]) });
    }
  }
  return copies;
}

/** The series COPYs, host progress and inventory changes of the stored reports, as one pipelined message. */
function storeMessage(
  stored: readonly PlannedReport[],
  requests: readonly WriteRequest[],
  ledger: CopyInput | null,
  trailing: string[],
  leading: string[] = [],
): Buffer {
  const copies: CopyInput[] = ledger ? [ledger, ...seriesCopies(stored, requests)] : seriesCopies(stored, requests);
  const sql = [inlineArrayParams(UPDATE_HOSTS_SQL, hostUpdateParams(hostProgress(stored)), pg.escapeLiteral)];
  const inventories = inventoryChanges(stored);
  if (inventories.length > 0) sql.push(inlineArrayParams(INSERT_INVENTORY_SQL, inventoryParams(inventories), pg.escapeLiteral));
  for (const late of lateMinuteStatements(stored, Date.now())) sql.push(inlineArrayParams(late.text, late.params, pg.escapeLiteral));
  return buildPipelinedMessage(copies, [...sql, ...trailing], leading);
}

/**
 * Group commit for a PostgreSQL server: requests queue their validated reports and wait; whenever one of the flush
 * slots is free, everything queued goes out as one transaction in one round trip (ledger COPY, series COPYs, host
 * update). A request is answered only after its flush committed; a failed flush fails only its own requests.
 */
export class GroupCommitWriter implements ReportWriter {
  private readonly queue: Pending[] = [];
  private queuedReports = 0;
  private flushing = 0;
  private idle: (() => void)[] = [];
  private closed = false;
  private readonly maxFlushes: number;
  private readonly maxReportsPerFlush: number;
  private readonly maxQueuedReports: number;
  private readonly queryTimeoutMs: number;

  constructor(private readonly pool: pg.Pool, options: GroupCommitOptions = {}) {
    this.maxFlushes = options.maxFlushes ?? 2;
    this.maxReportsPerFlush = options.maxReportsPerFlush ?? 2_000;
    this.maxQueuedReports = options.maxQueuedReports ?? 50_000;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 5_000;
  }

  private get setTimeoutSql(): string {
    return `SET LOCAL statement_timeout = ${Math.round(this.queryTimeoutMs)}`;
  }

  write(request: WriteRequest): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new DatabaseUnavailableError());
    if (this.queuedReports + request.reports.length > this.maxQueuedReports) {
      return Promise.reject(new DatabaseUnavailableError(1));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.queuedReports += request.reports.length;
      this.pump();
    });
  }

  /** Waits for queued and in-flight flushes, then refuses new writes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.flushing === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.flushing < this.maxFlushes && this.queue.length > 0) {
      const group: Pending[] = [];
      let reports = 0;
      while (this.queue.length > 0 && (group.length === 0 || reports + this.queue[0]!.request.reports.length <= this.maxReportsPerFlush)) {
        const next = this.queue.shift()!;
        reports += next.request.reports.length;
        group.push(next);
      }
      this.queuedReports -= reports;
      this.flushing++;
      void this.flushGroup(group).finally(() => {
        this.flushing--;
        this.pump();
        if (this.flushing === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  private async flushGroup(group: Pending[]): Promise<void> {
    try {
      const results = await this.flushWithRetry(group.map((p) => p.request));
      group.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      if (group.length > 1 && isDataError(err)) {
        // One request's bad value must not fail its neighbours: retry each alone, so only the culprit fails.
        for (const pending of group) await this.flushGroup([pending]);
        return;
      }
      const failure = storageErrorFor(err);
      for (const p of group) p.reject(failure);
      // Whatever is queued behind a dead or hung database would only wait for the same answer.
      if (failure instanceof DatabaseUnavailableError) this.rejectQueued(failure);
    }
  }

  private rejectQueued(failure: unknown): void {
    for (const p of this.queue.splice(0)) p.reject(failure);
    this.queuedReports = 0;
  }

  private async flushWithRetry(requests: WriteRequest[]): Promise<WriteResult[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.flush(requests);
      } catch (err) {
        if (attempt >= 2) throw err;
        if (isMissingPartition(err)) await ensurePartitions(poolSql(this.pool), new Date());
        else if (!isRetryableConflict(err)) throw err;
      }
    }
  }

  private async flush(requests: WriteRequest[]): Promise<WriteResult[]> {
    const plan = planWrites(requests);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      try {
        await runPipelinedCopy(client, storeMessage(plan.unique, requests, ledgerCopy(plan.unique), [], [this.setTimeoutSql]), this.queryTimeoutMs);
        return resultsByRequest(plan, plan.unique.map(() => true), requests.length);
      } catch (err) {
        if (!isLedgerConflict(err)) throw err;
      }
      return await this.flushWithDuplicates(client, plan, requests);
    } catch (err) {
      if (!(err as { severity?: string }).severity) broken = err as Error;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  // Some reports were stored before (an agent's retry): find the new ones with ON CONFLICT, then COPY only those.
  private async flushWithDuplicates(client: pg.PoolClient, plan: ReturnType<typeof planWrites>, requests: readonly WriteRequest[]) {
    await client.query('BEGIN');
    try {
      await client.query(this.setTimeoutSql);
      const { rows } = await client.query<{ host_id: number; seq: number }>(
        `INSERT INTO report_ledger (host_id, seq, ts)
         SELECT * FROM unnest($1::int4[], $2::int8[], $3::timestamptz[])
         ON CONFLICT DO NOTHING RETURNING host_id, seq`,
        [
          plan.unique.map((e) => e.hostId),
          plan.unique.map((e) => e.report.seq),
          plan.unique.map((e) => new Date(e.report.ts).toISOString()),
        ],
      );
      const inserted = new Set(rows.map((r) => `${r.host_id}:${r.seq}`));
      const isNew = plan.unique.map((e) => inserted.has(`${e.hostId}:${e.report.seq}`));
      const stored = plan.unique.filter((_, i) => isNew[i]);
      if (stored.length > 0) await runPipelinedCopy(client, storeMessage(stored, requests, null, ['COMMIT']), this.queryTimeoutMs);
      else await client.query('COMMIT');
      return resultsByRequest(plan, isNew, requests.length);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }
}
