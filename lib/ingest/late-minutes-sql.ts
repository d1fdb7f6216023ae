import type { Sql } from '../db/sql';
import { lateMinutesOf, markLateMinutes } from '../series/late-minutes';
import type { PlannedReport } from './write-plan';

export interface CapturedStatement {
  text: string;
  params: unknown[];
}

const asSqlParam = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

// markLateMinutes owns its SQL; the pipelined flush needs it as text and arrays to inline, not as a round trip.
function captureStatements(run: (sql: Sql) => Promise<void>): CapturedStatement[] {
  const captured: CapturedStatement[] = [];
  const sql: Sql = {
    async query<Row>(text: string, params: unknown[] = []) {
      captured.push({ text, params: params.map((p) => (Array.isArray(p) ? p.map(asSqlParam) : asSqlParam(p))) });
      return [] as Row[];
    },
    exec: async () => {
      throw new Error('not captured');
    },
    transaction: (fn) => fn(sql),
  };
  void run(sql);
  return captured;
}

/** The statement queuing the late (host, minute) pairs of these reports for re-rolling; none for fresh traffic. */
export function lateMinuteStatements(stored: readonly PlannedReport[], nowMs: number): CapturedStatement[] {
  const late = lateMinutesOf(stored.map((e) => ({ hostId: e.hostId, ts: e.report.ts })), nowMs);
  return late.length === 0 ? [] : captureStatements((sql) => markLateMinutes(sql, late));
}
