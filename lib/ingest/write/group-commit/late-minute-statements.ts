import { lateMinutesOf, markLateMinutesStatement, type SqlStatement } from '../../../series/late-minutes';
import type { PlannedReport } from '../plan';

export type { SqlStatement };

// The pipelined flush inlines parameters as text, so dates go as ISO strings.
const asTextParam = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** The statement queuing the late (host, minute) pairs of these reports for re-rolling; none for fresh traffic. */
export function lateMinuteStatements(stored: readonly PlannedReport[], nowMs: number): SqlStatement[] {
  const late = lateMinutesOf(stored.map((e) => ({ hostId: e.hostId, ts: e.report.ts })), nowMs);
  if (late.length === 0) return [];
  const { text, params } = markLateMinutesStatement(late);
  return [{ text, params: params.map((p) => (Array.isArray(p) ? p.map(asTextParam) : asTextParam(p))) }];
}
