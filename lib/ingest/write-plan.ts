import type { Inventory, Report } from '../protocol';

/** What planning, the ledger, the hosts' progress and the inventory snapshots read of a report. */
export type ReportKey = Pick<Report, 'seq' | 'ts' | 'inventory'>;

/** A host's reports to store: validated reports, or (inside the server writer) their encoded form. */
export interface WriteRequest<R extends ReportKey = Report> {
  hostId: number;
  reports: readonly R[];
}

export interface WriteResult {
  acceptedSeqs: number[];
  duplicateSeqs: number[];
}

export interface ReportWriter {
  write(request: WriteRequest): Promise<WriteResult>;
  close(): Promise<void>;
}

export interface PlannedReport<R extends ReportKey = ReportKey> {
  hostId: number;
  report: R;
  /** Which request of the flush it came from, and where in it. */
  request: number;
  index: number;
}

/** Reports to store, each (host, seq) once; a second copy in the same flush is a duplicate before it reaches SQL. */
export interface WritePlan<R extends ReportKey> {
  unique: PlannedReport<R>[];
  duplicatesByRequest: number[][];
}

export function planWrites<R extends ReportKey>(requests: readonly WriteRequest<R>[]): WritePlan<R> {
  const seen = new Set<string>();
  const unique: PlannedReport<R>[] = [];
  const duplicatesByRequest: number[][] = requests.map(() => []);
  requests.forEach(({ hostId, reports }, request) => {
    reports.forEach((report, index) => {
      const key = `${hostId}:${report.seq}`;
      if (seen.has(key)) duplicatesByRequest[request]!.push(report.seq);
      else {
        seen.add(key);
        unique.push({ hostId, report, request, index });
      }
    });
  });
  return { unique, duplicatesByRequest };
}

/** Splits the plan's outcome back into one result per request. */
export function resultsByRequest(plan: WritePlan<ReportKey>, isNew: readonly boolean[], requestCount: number): WriteResult[] {
  const results: WriteResult[] = [];
  for (let i = 0; i < requestCount; i++) results.push({ acceptedSeqs: [], duplicateSeqs: [...plan.duplicatesByRequest[i]!] });
  plan.unique.forEach((entry, i) => {
    const result = results[entry.request]!;
    (isNew[i] ? result.acceptedSeqs : result.duplicateSeqs).push(entry.report.seq);
  });
  return results;
}

export interface HostProgress {
  hostId: number;
  maxSeq: number;
  maxTsMs: number;
  /** When the server last stored a report of the host. */
  seenAtMs: number;
}

/** Per host, the newest of everything seen; merging the same progress twice changes nothing. */
export class HostProgressMap {
  private readonly byHost = new Map<number, HostProgress>();

  get size(): number {
    return this.byHost.size;
  }

  add(progress: HostProgress): void {
    const current = this.byHost.get(progress.hostId);
    if (!current) this.byHost.set(progress.hostId, { ...progress });
    else {
      current.maxSeq = Math.max(current.maxSeq, progress.maxSeq);
      current.maxTsMs = Math.max(current.maxTsMs, progress.maxTsMs);
      current.seenAtMs = Math.max(current.seenAtMs, progress.seenAtMs);
    }
  }

  addStored(stored: readonly PlannedReport[], seenAtMs: number): void {
    for (const { hostId, report } of stored) this.add({ hostId, maxSeq: report.seq, maxTsMs: report.ts, seenAtMs });
  }

  /** Everything gathered, in host-id order (the order UPDATE_HOSTS_SQL locks rows in), and forgets it. */
  take(): HostProgress[] {
    const all = [...this.byHost.values()].sort((a, b) => a.hostId - b.hostId);
    this.byHost.clear();
    return all;
  }
}

export function hostProgress(stored: readonly PlannedReport[], seenAtMs: number): HostProgress[] {
  const progress = new HostProgressMap();
  progress.addStored(stored, seenAtMs);
  return progress.take();
}

export interface InventoryChange {
  hostId: number;
  takenAtMs: number;
  inventory: Inventory;
}

/** Per host in ts order, the inventories whose hash differs from the one before (the database checks the first). */
export function inventoryChanges(stored: readonly PlannedReport[]): InventoryChange[] {
  const withInventory = stored.filter((entry) => entry.report.inventory !== undefined);
  if (withInventory.length === 0) return [];
  withInventory.sort((a, b) => a.hostId - b.hostId || a.report.ts - b.report.ts);
  const changes: InventoryChange[] = [];
  let previous: InventoryChange | undefined;
  for (const { hostId, report } of withInventory) {
    const inventory = report.inventory!;
    if (previous && previous.hostId === hostId && previous.inventory.hash === inventory.hash) continue;
    previous = { hostId, takenAtMs: report.ts, inventory };
    changes.push(previous);
  }
  return changes;
}

// Row locks in host-id order, so two writers touching the same hosts at once (server processes, embedded
// transactions) cannot deadlock.
export const UPDATE_HOSTS_SQL = `
UPDATE hosts h
   SET last_seen_at = GREATEST(h.last_seen_at, to_timestamp(v.seen_ms / 1000)),
       last_seq = GREATEST(h.last_seq, v.seq),
       last_report_ts = GREATEST(h.last_report_ts, to_timestamp(v.ts_ms / 1000))
  FROM (SELECT id FROM hosts WHERE id = ANY($1::int4[]) ORDER BY id FOR UPDATE) l,
       unnest($1::int4[], $2::int8[], $3::float8[], $4::float8[]) AS v(id, seq, ts_ms, seen_ms)
 WHERE h.id = l.id AND h.id = v.id`;

export const INSERT_INVENTORY_SQL = `
INSERT INTO inventory_snapshots (host_id, hash, taken_at, data)
SELECT v.host_id, v.hash, v.taken_at, v.data::jsonb
  FROM unnest($1::int4[], $2::text[], $3::timestamptz[], $4::text[]) WITH ORDINALITY AS v(host_id, hash, taken_at, data, n)
 WHERE v.hash IS DISTINCT FROM (SELECT s.hash FROM inventory_snapshots s WHERE s.host_id = v.host_id
                                 ORDER BY s.taken_at DESC, s.id DESC LIMIT 1)
 ORDER BY v.n`;

/**
 * The progress as four PostgreSQL array literals (ids, seqs, ts and seen time in epoch ms): it runs
 * on the ingest event loop, where pg's own encoding of 10,000 hosts' ISO timestamps held it for 35–65 ms.
 */
export function hostUpdateParams(progress: readonly HostProgress[]): string[] {
  const literal = (pick: (p: HostProgress) => number) => pgArrayLiteral(progress.map(pick));
  return [literal((p) => p.hostId), literal((p) => p.maxSeq), literal((p) => p.maxTsMs), literal((p) => p.seenAtMs)];
}

export function inventoryParams(changes: readonly InventoryChange[]): unknown[] {
  return [
    changes.map((c) => c.hostId),
    changes.map((c) => c.inventory.hash),
    changes.map((c) => new Date(c.takenAtMs).toISOString()),
    changes.map((c) => JSON.stringify(c.inventory)),
  ];
}

function arrayElement(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return `"${String(value).replace(/[\\"]/g, '\\$&')}"`;
}

/** PostgreSQL array literal of numbers or strings, e.g. {1,2} or {"a","b\"c"}. */
export function pgArrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(',')}}`;
}

/**
 * Substitutes $n placeholders whose values are arrays with quoted literals, for statements that must travel inside
 * a multi-statement simple-protocol message (which has no parameters).
 */
export function inlineArrayParams(sql: string, params: readonly unknown[], escapeLiteral: (text: string) => string): string {
  return sql.replace(/\$(\d+)/g, (_, index: string) => escapeLiteral(pgArrayLiteral(params[Number(index) - 1] as unknown[])));
}
