import type { Database } from '../../lib/db/open';
import type { Report } from '../../lib/protocol';
import { LatencySketch } from '../../lib/sketch';
import { makeReport } from '../support/report-factory';
import { rowsOf } from '../support/rows';

export const SECRET_KEY = Buffer.alloc(32, 42);

const breakdown = (stealPct: number) => ({
  userPct: 40,
  nicePct: 0,
  systemPct: 10,
  iowaitPct: 1,
  irqPct: 0.5,
  softirqPct: 0.5,
  stealPct,
  idlePct: Math.max(0, 48 - stealPct),
});

export interface Shape {
  /** Host steal, and per vCPU (4 vCPUs). */
  stealPct?: number;
  perCpuStealPct?: [number, number, number, number];
  queueDepth?: number;
  /** A latency series: `count` requests of which `slowShare` take 450 ms, the rest 40 ms. */
  latency?: { name: string; count: number; slowShare: number };
}

/** A report at `ts` with the shape a scenario needs; everything else as the report factory makes it. */
export function shapedReport(seq: number, ts: number, shape: Shape = {}): Report {
  const base = makeReport({ seq, ts });
  const perCpu = shape.perCpuStealPct ?? [1, 1, 1, 1];
  const steal = shape.stealPct ?? 1;
  const latency = shape.latency
    ? (() => {
        const sketch = new LatencySketch();
        const slow = Math.round(shape.latency.count * shape.latency.slowShare);
        for (let i = 0; i < shape.latency.count; i++) sketch.add(i < slow ? 450 : 40);
        return [{ name: shape.latency.name, tags: {}, sketch: sketch.toWire() }];
      })()
    : [];
  return {
    ...base,
    cpu: {
      ...base.cpu,
      total: breakdown(steal),
      perCpu: perCpu.map((s, i) => ({ cpu: i, ...breakdown(s) })),
      onlineCpus: 4,
    },
    disks: Array.isArray(base.disks) ? base.disks.map((d) => ({ ...d, queueDepth: shape.queueDepth ?? d.queueDepth })) : base.disks,
    latency,
  };
}

/** One report every 10 s over [fromMs, toMs], numbered from `firstSeq`. */
export function reportsBetween(firstSeq: number, fromMs: number, toMs: number, shape: Shape | ((ts: number) => Shape)): Report[] {
  const out: Report[] = [];
  for (let ts = fromMs, seq = firstSeq; ts <= toMs; ts += 10_000, seq++) out.push(shapedReport(seq, ts, typeof shape === 'function' ? shape(ts) : shape));
  return out;
}

export async function alertRows(db: Database, ruleId?: string) {
  return rowsOf<{ id: number; rule_id: string; state: string; fingerprint: string; labels: Record<string, string>; annotations: Record<string, string>; notified: string; value: number | null }>(db.sql,
    `SELECT id, rule_id, state, fingerprint, labels, annotations, notified, value FROM alerts ${ruleId ? 'WHERE rule_id = $1' : ''} ORDER BY id`,
    ruleId ? [ruleId] : [],
  );
}

export async function deliveryRows(db: Database) {
  return rowsOf<{ id: number; channel_id: number; alert_id: number | null; kind: string; event: string; status: string; attempts: number; last_error: string | null }>(db.sql,
    'SELECT id, channel_id, alert_id, kind, event, status, attempts, last_error FROM alert_deliveries ORDER BY id',
  );
}

/** Only the rules a test is about stay enabled, so others (host silence on a clock in the past) keep quiet. */
export async function enableOnly(db: Database, ruleIds: string[]): Promise<void> {
  await db.sql.query('UPDATE alert_rules SET enabled = (id = ANY($1::text[]))', [ruleIds]);
}
