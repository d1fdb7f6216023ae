import type { Database } from '../../db/open';
import type { Sql } from '../../db/sql';
import { NotFoundError } from '../../errors';
import type { LabelMatcher, Silence, SilenceInput, SilencesQuery, SilenceState } from '../../protocol/alerts';
import type { SilenceWindow } from '../matchers';

interface SilenceRow {
  id: number;
  matchers: LabelMatcher[] | string;
  starts_at: Date;
  ends_at: Date;
  comment: string;
  created_by: string;
  created_at: Date;
}

function stateOf(row: SilenceRow, nowMs: number): SilenceState {
  if (new Date(row.ends_at).getTime() <= nowMs) return 'expired';
  return new Date(row.starts_at).getTime() > nowMs ? 'pending' : 'active';
}

const toSilence = (r: SilenceRow, nowMs: number): Silence => ({
  id: r.id,
  matchers: typeof r.matchers === 'string' ? JSON.parse(r.matchers) : r.matchers,
  startsAt: new Date(r.starts_at).toISOString(),
  endsAt: new Date(r.ends_at).toISOString(),
  comment: r.comment,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at).toISOString(),
  state: stateOf(r, nowMs),
});

export async function listSilences(db: Pick<Database, 'sql'>, query: SilencesQuery, now = new Date()): Promise<Silence[]> {
  const rows = await db.sql.query<SilenceRow>('SELECT * FROM alert_silences ORDER BY ends_at DESC, id DESC LIMIT 10000');
  return rows.map((r) => toSilence(r, now.getTime())).filter((s) => query.state === 'all' || s.state === query.state);
}

export async function createSilence(db: Pick<Database, 'sql'>, input: SilenceInput, now = new Date()): Promise<Silence> {
  const [row] = await db.sql.query<SilenceRow>(
    `INSERT INTO alert_silences (matchers, starts_at, ends_at, comment, created_by) VALUES ($1::jsonb, $2, $3, $4, $5) RETURNING *`,
    [JSON.stringify(input.matchers), input.startsAt ? new Date(input.startsAt) : now, new Date(input.endsAt), input.comment, input.createdBy],
  );
  return toSilence(row!, now.getTime());
}

/** Ends a silence now (a pending one never starts); expired silences stay as history. */
export async function expireSilence(db: Pick<Database, 'sql'>, id: number, now = new Date()): Promise<Silence> {
  const [row] = await db.sql.query<SilenceRow>(
    `UPDATE alert_silences SET ends_at = LEAST(ends_at, $2), starts_at = LEAST(starts_at, $2) WHERE id = $1 RETURNING *`,
    [id, now],
  );
  if (!row) throw new NotFoundError(`silence ${id} not found`);
  return toSilence(row, now.getTime());
}

/** Silences that are active at some time from `now` on (the engine checks each at the instant it notifies). */
export async function readSilenceWindows(sql: Sql, now: Date): Promise<SilenceWindow[]> {
  const rows = await sql.query<SilenceRow>('SELECT * FROM alert_silences WHERE ends_at > $1', [now]);
  return rows.map((r) => ({
    id: r.id,
    matchers: typeof r.matchers === 'string' ? JSON.parse(r.matchers) : r.matchers,
    startsAtMs: new Date(r.starts_at).getTime(),
    endsAtMs: new Date(r.ends_at).getTime(),
  }));
}
