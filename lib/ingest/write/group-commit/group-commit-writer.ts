import pg from 'pg';
import { z } from 'zod';
import { checkRows, column } from '../../../db/rows';
import { ensurePartitions } from '../../../db/partitions';
import { poolSql } from '../../../db/sql';
import { DatabaseUnavailableError } from '../../../errors';
import type { Report } from '../../../protocol';
import { BinaryWriter, writeBinaryTuples } from './copy-binary';
import { encodeReport, hasTableRows, writeTableTuples, type EncodedReport } from './encoded-report';
import { lateMinuteStatements } from './late-minute-statements';
import { encodePipelinedMessage, runPipelinedCopy, type CopyData } from './pipelined-copy';
import { isDataError, isLedgerConflict, isMissingPartition, isRetryableConflict, storageErrorFor } from '../storage-errors';
import { LEDGER, SERIES_KINDS, SERIES_SPECS, type TableSpec } from '../table-specs';
import { HostProgressMap, hostUpdateParams } from '../host-progress';
import { RECORD_HOST_PROGRESS_SQL } from '../../../hosts/store';
import { inventoryChanges, inventoryStatements } from '../inventory';
import { inlineArrayParams } from '../pg-array';
import { planWrites, resultsByRequest, type PlannedReport, type WritePlan } from '../plan';
import type { ReportWriter, WriteRequest, WriteResult } from '../writer';

const insertedRow = z.object({ host_id: column.id, seq: column.int8 });

export interface GroupCommitOptions {
  /**
   * Flushes in flight at once. One by default: on a CPU-bound box, fewer and bigger transactions cost PostgreSQL
   * less per report.
   */
  maxFlushes?: number;
  maxReportsPerFlush?: number;
  /** Beyond this many queued reports new writes get 503 instead of waiting. */
  maxQueuedReports?: number;
  /** A flush taking longer (statement_timeout on the server, read timeout in pg) fails with 503. */
  queryTimeoutMs?: number;
  /**
   * How often the hosts' last seen time and seq are written (one UPDATE for every host stored since): each host's
   * row once per interval instead of once per report. Nothing waits for it: the fleet's last-heard time also reads the
   * newest sample, and enrollment the ledger.
   */
  hostProgressIntervalMs?: number;
  /**
   * Hosts per progress UPDATE. Each chunk is encoded on the event loop and committed on its own, so the loop is held
   * for one chunk at a time, not for every host at once, and host rows stay locked only for one chunk.
   */
  hostProgressChunk?: number;
  /** Told of every flush once it committed or failed: where a request's time went, for metrics and benchmarks. */
  onFlush?: (flush: FlushOutcome) => void;
}

export interface FlushOutcome {
  requests: number;
  reports: number;
  /** How long the flush's oldest request waited in the queue before the flush began. */
  queuedMs: number;
  /** From the flush's start to its commit (or failure), retries included. */
  flushMs: number;
  ok: boolean;
}

type EncodedRequest = WriteRequest<EncodedReport>;
type Stored = readonly PlannedReport<EncodedReport>[];

interface Pending {
  request: EncodedRequest;
  queuedAt: number;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

const copyStatement = (spec: TableSpec) => `COPY ${spec.table} (${spec.columns.join(', ')}) FROM STDIN (FORMAT binary)`;
const LEDGER_COPY = copyStatement(LEDGER);
const SERIES_COPY = new Map(SERIES_KINDS.map((kind) => [kind, copyStatement(SERIES_SPECS[kind])]));
// A writer that grew past this for a backlog burst is dropped rather than kept for the next flush.
const MAX_KEPT_WRITER_BYTES = 4 * 1024 * 1024;

/**
 * The ledger rows (optional) and series rows of the stored reports, one COPY per table that has rows. The series
 * tuples were encoded as each report arrived: here they are only copied, table by table.
 */
function copiesOf(stored: Stored, withLedger: boolean): CopyData[] {
  const copies: CopyData[] = [];
  if (withLedger) {
    const values: number[] = [];
    for (const { hostId, report } of stored) values.push(hostId, report.seq, report.ts);
    copies.push({ statement: LEDGER_COPY, writeTuples: (w) => writeBinaryTuples(w, { width: 3, values }, LEDGER.types) });
  }
  for (const kind of SERIES_KINDS) {
    if (!stored.some((entry) => hasTableRows(entry.report, kind))) continue;
    copies.push({
      statement: SERIES_COPY.get(kind)!,
      writeTuples: (w) => {
        for (const entry of stored) writeTableTuples(w, entry.report, kind);
      },
    });
  }
  return copies;
}

/** The stored reports' COPYs, inventory changes and late minutes as one pipelined message, encoded into `w`. */
function storeMessage(w: BinaryWriter, stored: Stored, withLedger: boolean, leading: string[], trailing: string[]): Buffer {
  const sql: string[] = [];
  for (const statement of inventoryStatements(inventoryChanges(stored))) sql.push(inlineArrayParams(statement.text, statement.params, pg.escapeLiteral));
  for (const late of lateMinuteStatements(stored, Date.now())) sql.push(inlineArrayParams(late.text, late.params, pg.escapeLiteral));
  return encodePipelinedMessage(w, copiesOf(stored, withLedger), [...sql, ...trailing], leading);
}

/**
 * Group commit for a PostgreSQL server: requests queue their reports, encoded as COPY tuples on arrival, and wait;
 * whenever one of the flush slots is free, everything queued goes out as one transaction in one round trip (ledger
 * COPY, series COPYs). A request is answered only after its flush committed; a failed flush fails only its own
 * requests.
 *
 * The hosts' progress (last seen, last seq) is not part of that transaction: updating the flush's host rows in every
 * flush cost throughput. It is gathered in memory and written every few seconds for all hosts at once;
 * what a crash loses of it is only a few seconds of "last seen" — enrollment reads the last seq from the ledger.
 * A configured interval (agent.reportEveryMs) this process has not written yet is written at once, though (with the
 * rest of the progress gathered; after a restart, once per host): silence is judged by it, and a new host's only
 * report until then is a warm-up of a fraction of a second.
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
  private readonly spareWriters: BinaryWriter[] = [];
  private readonly progress = new HostProgressMap();
  private readonly hostProgressChunk: number;
  private readonly onFlush: GroupCommitOptions['onFlush'];
  private readonly progressTimer: NodeJS.Timeout;
  private progressWrite: Promise<void> = Promise.resolve();
  private progressWriteQueued = false;

  constructor(private readonly pool: pg.Pool, options: GroupCommitOptions = {}) {
    this.maxFlushes = options.maxFlushes ?? 1;
    this.maxReportsPerFlush = options.maxReportsPerFlush ?? 2_000;
    this.maxQueuedReports = options.maxQueuedReports ?? 50_000;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 5_000;
    this.hostProgressChunk = options.hostProgressChunk ?? 1_000;
    this.onFlush = options.onFlush;
    this.progressTimer = setInterval(() => void this.writeHostProgress(), options.hostProgressIntervalMs ?? 30_000);
    this.progressTimer.unref();
  }

  /** Writes the host progress gathered so far, a chunk per UPDATE (the timer does this every interval; tests and close() at once). */
  writeHostProgress(): Promise<void> {
    this.progressWrite = this.progressWrite.then(async () => {
      this.progressWriteQueued = false;
      const batch = this.progress.take();
      for (let start = 0; start < batch.length; start += this.hostProgressChunk) {
        const chunk = batch.slice(start, start + this.hostProgressChunk);
        try {
          await this.pool.query({ text: RECORD_HOST_PROGRESS_SQL, values: hostUpdateParams(chunk), query_timeout: this.queryTimeoutMs } as pg.QueryConfig);
        } catch (err) {
          for (const host of batch.slice(start)) this.progress.add(host);
          console.error(`ingest: could not write host progress (will retry): ${(err as Error).message}`);
          return;
        }
      }
    });
    return this.progressWrite;
  }

  private gatherProgress(stored: Stored): void {
    this.progress.addStored(stored, Date.now());
    if (!this.progress.hasNewReportEvery || this.progressWriteQueued || this.closed) return;
    this.progressWriteQueued = true;
    void this.writeHostProgress();
  }

  private get setTimeoutSql(): string {
    return `SET LOCAL statement_timeout = ${Math.round(this.queryTimeoutMs)}`;
  }

  /** Encodes the reports at once (the caller need not keep them) and resolves when their flush has committed. */
  write(request: WriteRequest<Report>): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new DatabaseUnavailableError());
    if (this.queuedReports + request.reports.length > this.maxQueuedReports) {
      return Promise.reject(new DatabaseUnavailableError(1));
    }
    let encoded: EncodedRequest;
    try {
      encoded = { hostId: request.hostId, reports: request.reports.map((report) => encodeReport(request.hostId, report)) };
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ request: encoded, queuedAt: performance.now(), resolve, reject });
      this.queuedReports += request.reports.length;
      this.pump();
    });
  }

  /** Waits for queued and in-flight flushes and writes the host progress, then refuses new writes. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.progressTimer);
    if (this.flushing > 0 || this.queue.length > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.writeHostProgress();
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
    const started = performance.now();
    const observe = (ok: boolean) => this.onFlush?.({
      requests: group.length,
      reports: group.reduce((n, p) => n + p.request.reports.length, 0),
      queuedMs: started - group[0]!.queuedAt,
      flushMs: performance.now() - started,
      ok,
    });
    try {
      const results = await this.flushWithRetry(group.map((p) => p.request));
      observe(true);
      group.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      observe(false);
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

  private async flushWithRetry(requests: EncodedRequest[]): Promise<WriteResult[]> {
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

  private async flush(requests: EncodedRequest[]): Promise<WriteResult[]> {
    const plan = planWrites(requests);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      // The message is encoded in place into a writer kept from an earlier flush. Only a flush PostgreSQL answered
      // in full gives it back: after an error, the socket may still be sending from it.
      const writer = this.spareWriters.pop() ?? new BinaryWriter(65_536);
      try {
        const message = storeMessage(writer, plan.unique, true, [this.setTimeoutSql], []);
        await runPipelinedCopy(client, message, this.queryTimeoutMs);
        if (writer.buf.length <= MAX_KEPT_WRITER_BYTES) this.spareWriters.push(writer);
        this.gatherProgress(plan.unique);
        return resultsByRequest(plan, plan.unique.map(() => true), requests.length);
      } catch (err) {
        if (!isLedgerConflict(err)) throw err;
      }
      return await this.flushWithDuplicates(client, plan);
    } catch (err) {
      if (!(err as { severity?: string }).severity) broken = err as Error;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  // Some reports were stored before (an agent's retry): find the new ones with ON CONFLICT, then COPY only those.
  private async flushWithDuplicates(client: pg.PoolClient, plan: WritePlan<EncodedReport>) {
    await client.query('BEGIN');
    try {
      await client.query(this.setTimeoutSql);
      const { rows: returned } = await client.query(
        `INSERT INTO report_ledger (host_id, seq, ts)
         SELECT * FROM unnest($1::int4[], $2::int8[], $3::timestamptz[])
         ON CONFLICT DO NOTHING RETURNING host_id, seq`,
        [
          plan.unique.map((e) => e.hostId),
          plan.unique.map((e) => e.report.seq),
          plan.unique.map((e) => new Date(e.report.ts).toISOString()),
        ],
      );
      const rows = checkRows('report_ledger', insertedRow, returned);
      const inserted = new Set(rows.map((r) => `${r.host_id}:${r.seq}`));
      const isNew = plan.unique.map((e) => inserted.has(`${e.hostId}:${e.report.seq}`));
      const stored = plan.unique.filter((_, i) => isNew[i]);
      if (stored.length > 0) await runPipelinedCopy(client, storeMessage(new BinaryWriter(), stored, false, [], ['COMMIT']), this.queryTimeoutMs);
      else await client.query('COMMIT');
      this.gatherProgress(stored);
      return resultsByRequest(plan, isNew, plan.duplicatesByRequest.length);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }
}
