import { z } from 'zod';
import { column, queryRow, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { SEVERITIES } from '../../protocol/findings';
import { postableAlert, type PostableAlert } from '../channels/alertmanager';
import type { DeliverableChannel } from '../channels/channel-store';
import { dashboardUrl } from '../describe';
import { isSilenced } from '../matchers';
import { routes } from '../notify-plan';
import { readSilenceWindows } from './silences';

const stateRow = z.object({
  host_id: column.id.nullable(),
  region: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  labels: column.labels,
  annotations: column.labels,
  fired_at: column.timestamp,
  resolved_at: column.timestamp.nullable(),
  ack_by: z.string().nullable(),
  ack_comment: z.string().nullable(),
});

export interface SyncOptions {
  nowMs: number;
  /** How often firing alerts are re-sent (endsAt is 4 × this ahead). */
  resendMs: number;
  /** Resolved alerts are re-sent for this long after they resolve (Prometheus: 15 min). */
  resolvedRetentionMs: number;
  publicUrl: string;
}

/**
 * What one Alertmanager should hold now: every firing alert it routes (unsilenced), and every alert resolved within
 * the retention, with its endsAt in the past so Alertmanager resolves it even if it missed the first message.
 */
export async function readAlertmanagerState(sql: Sql, channel: DeliverableChannel, options: SyncOptions): Promise<PostableAlert[]> {
  const now = new Date(options.nowMs);
  const [rows, silences] = await Promise.all([
    queryRows(
      sql,
      'alerts',
      stateRow,
      `SELECT host_id, region, severity, labels, annotations, fired_at, resolved_at, ack_by, ack_comment FROM alerts
        WHERE state = 'firing' OR (state = 'resolved' AND fired_at IS NOT NULL AND resolved_at >= $1)
        ORDER BY id`,
      [new Date(options.nowMs - options.resolvedRetentionMs)],
    ),
    readSilenceWindows(sql, now),
  ]);
  const out: PostableAlert[] = [];
  for (const r of rows) {
    const labels = r.labels;
    if (!routes(channel, { severity: r.severity, labels })) continue;
    if (r.resolved_at === null && isSilenced(silences, labels, options.nowMs)) continue;
    const annotations = { ...r.annotations };
    if (r.ack_by) annotations.acknowledged = `${r.ack_by}${r.ack_comment ? `: ${r.ack_comment}` : ''}`;
    out.push(
      postableAlert(
        {
          labels,
          annotations,
          firedAtMs: r.fired_at.getTime(),
          resolvedAtMs: r.resolved_at?.getTime() ?? null,
          url: dashboardUrl(options.publicUrl, { hostId: r.host_id, region: r.region, service: labels.service }),
        },
        options.nowMs,
        options.resendMs,
      ),
    );
  }
  return out;
}

const anyStateRow = z.object({ any: z.boolean() });

/** Channels whose Alertmanager holds something to refresh: the periodic re-send queues a sync for each. */
export async function hasAlertmanagerState(sql: Sql, nowMs: number, resolvedRetentionMs: number): Promise<boolean> {
  const row = await queryRow(
    sql,
    'alerts',
    anyStateRow,
    `SELECT EXISTS (SELECT 1 FROM alerts WHERE state = 'firing' OR (state = 'resolved' AND resolved_at >= $1)) AS any`,
    [new Date(nowMs - resolvedRetentionMs)],
  );
  return row?.any ?? false;
}
