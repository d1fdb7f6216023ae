import { z } from 'zod';
import type { Database } from '../../db/open';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { DELIVERY_STATUSES, type DeliveriesQuery, type DeliveriesResponse, type Delivery, type WebhookPayload } from '../../protocol/alerts';
import { countDeliveryOutcome } from '../channels/channel-store';
import type { NotificationPlan } from '../notify-plan';

/** A claimed outbox row, as the worker sends it. */
export interface ClaimedDelivery {
  id: number;
  channelId: number;
  alertId: number | null;
  kind: 'event' | 'sync';
  event: 'firing' | 'resolved' | 'sync';
  payload: WebhookPayload | null;
  attempts: number;
  createdAtMs: number;
}

const deliveryRow = z.object({
  id: column.int8,
  channel_id: column.id,
  channel_name: z.string().optional(),
  alert_id: column.int8.nullable(),
  kind: z.enum(['event', 'sync']),
  event: z.enum(['firing', 'resolved', 'sync']),
  payload: column.document<WebhookPayload>().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at: column.timestamp,
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: column.timestamp,
  updated_at: column.timestamp,
  delivered_at: column.timestamp.nullable(),
});

/** Event notifications, each a pending row due now: written in the cycle's transaction, sent after it commits. */
export async function enqueueEvents(tx: Sql, events: NotificationPlan['events'], now: Date): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO alert_deliveries (channel_id, alert_id, kind, event, payload, next_attempt_at, created_at, updated_at)
     SELECT v.channel_id, v.alert_id, 'event', v.event, v.payload::jsonb, $4, $4, $4
       FROM unnest($1::int4[], $2::int8[], $3::text[], $5::text[]) AS v(channel_id, alert_id, event, payload)`,
    [events.map((e) => e.channelId), events.map((e) => e.alertId), events.map((e) => e.event), now, events.map((e) => JSON.stringify(e.payload))],
  );
}

/** A sync for each channel unless one is already waiting: it sends the state as it is when it goes out. */
export async function enqueueSync(sql: Sql, channelIds: readonly number[], now: Date): Promise<void> {
  if (channelIds.length === 0) return;
  await sql.query(
    `INSERT INTO alert_deliveries (channel_id, kind, event, next_attempt_at, created_at, updated_at)
     SELECT c, 'sync', 'sync', $2, $2, $2 FROM unnest($1::int4[]) c
     ON CONFLICT (channel_id) WHERE kind = 'sync' AND status = 'pending' DO NOTHING`,
    [channelIds, now],
  );
}

/**
 * Claims up to `limit` due rows of one channel for `leaseMs`; a row whose lease ran out (its sender died) is due
 * again. An alert's later notification waits for its earlier one, so a channel hears firing before resolved.
 */
export async function claimDeliveries(sql: Sql, channelId: number, limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
  const rows = await queryRows(
    sql,
    'alert_deliveries',
    deliveryRow,
    `UPDATE alert_deliveries d
        SET status = 'sending', attempts = d.attempts + 1, lease_until = $3, updated_at = $2
      WHERE d.id IN (
        SELECT c.id FROM alert_deliveries c
         WHERE c.channel_id = $1
           AND ((c.status = 'pending' AND c.next_attempt_at <= $2) OR (c.status = 'sending' AND c.lease_until <= $2))
           AND NOT EXISTS (SELECT 1 FROM alert_deliveries p
                            WHERE p.channel_id = c.channel_id AND p.alert_id = c.alert_id AND p.id < c.id
                              AND p.status IN ('pending', 'sending'))
         ORDER BY c.id LIMIT $4
         FOR UPDATE SKIP LOCKED)
      RETURNING d.*`,
    [channelId, now, new Date(now.getTime() + leaseMs), limit],
  );
  return rows
    .sort((a, b) => a.id - b.id)
    .map((r) => ({
      id: r.id,
      channelId: r.channel_id,
      alertId: r.alert_id,
      kind: r.kind,
      event: r.event,
      payload: r.payload,
      attempts: r.attempts,
      createdAtMs: r.created_at.getTime(),
    }));
}

export async function markDelivered(sql: Sql, delivery: ClaimedDelivery, statusCode: number, now: Date): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query(
      `UPDATE alert_deliveries SET status = 'delivered', delivered_at = $2, updated_at = $2, lease_until = NULL,
              last_status_code = $3, last_error = NULL
        WHERE id = $1`,
      [delivery.id, now, statusCode],
    );
    await countDeliveryOutcome(tx, delivery.channelId, 'delivered');
  });
}

/**
 * Records a failed attempt: due again at `retryAt`, or failed for good when that is null. A sync row whose
 * channel already has a newer sync waiting gives way to it, handing over its backoff.
 */
export async function markAttemptFailed(
  sql: Sql,
  delivery: ClaimedDelivery,
  failure: { error: string; statusCode: number | null; retryAt: Date | null; counted?: boolean },
  now: Date,
): Promise<void> {
  await sql.transaction(async (tx) => {
    let status: 'pending' | 'failed' = failure.retryAt ? 'pending' : 'failed';
    if (status === 'pending' && delivery.kind === 'sync') {
      const newer = await tx.query(
        `UPDATE alert_deliveries SET next_attempt_at = GREATEST(next_attempt_at, $2), attempts = GREATEST(attempts, $3)
          WHERE channel_id = $1 AND kind = 'sync' AND status = 'pending' RETURNING id`,
        [delivery.channelId, failure.retryAt, delivery.attempts],
      );
      if (newer.length > 0) status = 'failed';
    }
    await tx.query(
      `UPDATE alert_deliveries SET status = $2, next_attempt_at = COALESCE($3, next_attempt_at), lease_until = NULL,
              last_error = $4, last_status_code = $5, updated_at = $6
        WHERE id = $1`,
      [delivery.id, status, failure.retryAt, failure.error.slice(0, 1000), failure.statusCode, now],
    );
    if (failure.counted !== false) await countDeliveryOutcome(tx, delivery.channelId, 'failed');
  });
}

const firedRow = z.object({ alert_id: column.int8, channel_id: column.id });

/** Per occurrence, the channels that were queued its firing, so its resolution goes to the same ones. */
export async function readChannelsNotifiedOfFiring(tx: Pick<Sql, 'query'>, alertIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const rows = await queryRows(
    tx,
    'alert_deliveries',
    firedRow,
    `SELECT DISTINCT alert_id, channel_id FROM alert_deliveries WHERE alert_id = ANY($1::int8[]) AND event = 'firing'`,
    [alertIds],
  );
  const firedTo = new Map<number, Set<number>>();
  for (const r of rows) {
    const channels = firedTo.get(r.alert_id) ?? new Set<number>();
    channels.add(r.channel_id);
    firedTo.set(r.alert_id, channels);
  }
  return firedTo;
}

/** The delivery log, newest first. */
export async function listDeliveries(db: Pick<Database, 'sql'>, query: DeliveriesQuery): Promise<DeliveriesResponse> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sqlText: string, value: unknown) => {
    params.push(value);
    conditions.push(sqlText.replace('?', `$${params.length}`));
  };
  if (query.channel !== undefined) add('d.channel_id = ?', query.channel);
  if (query.alert !== undefined) add('d.alert_id = ?', query.alert);
  if (query.status !== undefined) add('d.status = ?', query.status);
  params.push(query.limit + 1);
  const rows = await queryRows(
    db.sql,
    'alert_deliveries',
    deliveryRow,
    `SELECT d.*, c.name AS channel_name FROM alert_deliveries d JOIN alert_channels c ON c.id = d.channel_id
      ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY d.id DESC LIMIT $${params.length}`,
    params,
  );
  const deliveries: Delivery[] = rows.slice(0, query.limit).map((r) => ({
    id: r.id,
    channelId: r.channel_id,
    channelName: r.channel_name ?? '',
    alertId: r.alert_id,
    kind: r.kind,
    event: r.event,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at.toISOString(),
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    deliveredAt: r.delivered_at?.toISOString() ?? null,
  }));
  return { deliveries, truncated: rows.length > query.limit };
}

/** Forgets delivered and failed rows older than `before`. */
export async function pruneDeliveries(sql: Sql, before: Date): Promise<number> {
  const rows = await sql.query(`DELETE FROM alert_deliveries WHERE status IN ('delivered', 'failed') AND created_at < $1 RETURNING id`, [before]);
  return rows.length;
}
