import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import type { FindingEffect, FindingEvidence } from '../../protocol/findings';
import { measuringEffect } from '../judge-effect';

/** Occurrences resolved longer ago than this are not measured any more: their data may be rolled up or gone. */
const MEASURE_WITHIN_MS = 2 * 24 * 3_600_000;

/**
 * Starts measuring every occurrence that has resolved since and was ever open (a pending one fixed nothing): a
 * 'measuring' row due once the window after its resolution has passed. Returns how many began.
 */
export async function beginMeasuringEffects(sql: Sql, now: Date, windowMs: number): Promise<number> {
  const rows = await sql.query(
    `INSERT INTO finding_effects (finding_id, status, measure_after)
     SELECT f.id, 'measuring', f.resolved_at + make_interval(secs => $2::float8 / 1000)
       FROM findings f
      WHERE f.state = 'resolved' AND f.host_id IS NOT NULL AND f.opened_at IS NOT NULL AND f.resolved_at > $1
        AND NOT EXISTS (SELECT 1 FROM finding_effects e WHERE e.finding_id = f.id)
     ON CONFLICT (finding_id) DO NOTHING
     RETURNING finding_id`,
    [new Date(now.getTime() - MEASURE_WITHIN_MS), windowMs],
  );
  return rows.length;
}

/** A resolved occurrence whose fix is due to be measured. */
export interface ResolvedOccurrence {
  id: number;
  hostId: number;
  firstSeenAtMs: number;
  resolvedAtMs: number;
  measureAfterMs: number;
  evidence: FindingEvidence;
}

const dueRow = z.object({
  id: column.int8,
  host_id: column.id,
  first_seen_at: column.timestamp,
  resolved_at: column.timestamp,
  measure_after: column.timestamp,
  evidence: column.document<FindingEvidence>(),
});

/** Occurrences whose window after resolution has passed and that are not measured yet, the oldest first. */
export async function listDueEffects(sql: Sql, now: Date, limit: number): Promise<ResolvedOccurrence[]> {
  const rows = await queryRows(
    sql,
    'finding_effects',
    dueRow,
    `SELECT f.id, f.host_id, f.first_seen_at, f.resolved_at, e.measure_after, f.evidence
       FROM finding_effects e JOIN findings f ON f.id = e.finding_id
      WHERE e.status = 'measuring' AND e.measure_after <= $1
      ORDER BY e.measure_after LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    hostId: r.host_id,
    firstSeenAtMs: r.first_seen_at.getTime(),
    resolvedAtMs: r.resolved_at.getTime(),
    measureAfterMs: r.measure_after.getTime(),
    evidence: r.evidence,
  }));
}

export async function saveMeasuredEffect(sql: Sql, findingId: number, effect: FindingEffect, now: Date): Promise<void> {
  await sql.query(`UPDATE finding_effects SET status = 'measured', measured_at = $2, effect = $3::jsonb WHERE finding_id = $1`, [
    findingId,
    now,
    JSON.stringify(effect),
  ]);
}

/** The columns a findings read joins in (`LEFT JOIN finding_effects e ON e.finding_id = f.id`). */
export const EFFECT_COLUMNS = 'e.status AS effect_status, e.measure_after AS effect_measure_after, e.effect AS effect';

/** The row shape of EFFECT_COLUMNS, for the reads that join them to spread into their own. */
export const effectColumns = {
  effect_status: z.enum(['measuring', 'measured']).nullable(),
  effect_measure_after: column.timestamp.nullable(),
  effect: column.document<FindingEffect>().nullable(),
};
export type EffectColumns = z.output<z.ZodObject<typeof effectColumns>>;

/** A finding's effect from its joined columns: null when it is not being measured. */
export function effectOf(row: EffectColumns & { resolved_at: Date | null }): FindingEffect | null {
  if (row.effect_status === 'measured' && row.effect !== null) return row.effect;
  if (row.effect_status === 'measuring' && row.resolved_at && row.effect_measure_after) {
    return measuringEffect(row.resolved_at.getTime(), row.effect_measure_after.getTime());
  }
  return null;
}
