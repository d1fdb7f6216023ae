import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { NotFoundError } from '../../errors';
import { storedLabelMatcherSchema, type Silence, type SilenceInput, type SilencesQuery, type SilenceState } from '../../protocol/alerts';
import type { SilenceWindow } from '../matchers';

const silenceRow = z.object({
  id: column.id,
  matchers: z.array(storedLabelMatcherSchema),
  starts_at: column.timestamp,
  ends_at: column.timestamp,
  comment: z.string(),
  created_by: z.string(),
  created_at: column.timestamp,
});
type SilenceRow = z.output<typeof silenceRow>;

function stateOf(row: SilenceRow, nowMs: number): SilenceState {
  if (row.ends_at.getTime() <= nowMs) return 'expired';
  return row.starts_at.getTime() > nowMs ? 'pending' : 'active';
}

const toSilence = (r: SilenceRow, nowMs: number): Silence => ({
  id: r.id,
  matchers: r.matchers,
  startsAt: r.starts_at.toISOString(),
  endsAt: r.ends_at.toISOString(),
  comment: r.comment,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  state: stateOf(r, nowMs),
});

export async function listSilences(db: Pick<Database, 'sql'>, query: SilencesQuery, now = new Date()): Promise<Silence[]> {
  const rows = await queryRows(db.sql, 'alert_silences', silenceRow, 'SELECT * FROM alert_silences ORDER BY ends_at DESC, id DESC LIMIT 10000');
  return rows.map((r) => toSilence(r, now.getTime())).filter((s) => query.state === 'all' || s.state === query.state);
}

export async function createSilence(db: Pick<Database, 'sql'>, input: SilenceInput, now = new Date()): Promise<Silence> {
  const [row] = await queryRows(
    db.sql,
    'alert_silences',
    silenceRow,
    `INSERT INTO alert_silences (matchers, starts_at, ends_at, comment, created_by) VALUES ($1::jsonb, $2, $3, $4, $5) RETURNING *`,
    [JSON.stringify(input.matchers), input.startsAt ? new Date(input.startsAt) : now, new Date(input.endsAt), input.comment, input.createdBy],
  );
  return toSilence(row!, now.getTime());
}

/** Ends a silence now (a pending one never starts); expired silences stay as history. */
export async function expireSilence(db: Pick<Database, 'sql'>, id: number, now = new Date()): Promise<Silence> {
  const [row] = await queryRows(
    db.sql,
    'alert_silences',
    silenceRow,
    `UPDATE alert_silences SET ends_at = LEAST(ends_at, $2), starts_at = LEAST(starts_at, $2) WHERE id = $1 RETURNING *`,
    [id, now],
  );
  if (!row) throw new NotFoundError(`silence ${id} not found`);
  return toSilence(row, now.getTime());
}

/** Silences that are active at some time from `now` on (the engine checks each at the instant it notifies). */
export async function readSilenceWindows(sql: Sql, now: Date): Promise<SilenceWindow[]> {
  const rows = await queryRows(sql, 'alert_silences', silenceRow, 'SELECT * FROM alert_silences WHERE ends_at > $1', [now]);
  return rows.map((r) => ({
    id: r.id,
    matchers: r.matchers,
    startsAtMs: r.starts_at.getTime(),
    endsAtMs: r.ends_at.getTime(),
  }));
}
