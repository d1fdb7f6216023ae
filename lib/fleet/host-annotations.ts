import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import { NotFoundError } from '../errors';
import { EFFECT_COLUMNS, effectColumns, effectOf } from '../findings/store/finding-effects';
import { findRule } from '../findings/registry';
import { readInventoryChanges } from '../findings/latency/read/inventory-changes';
import { hostExists } from '../hosts/store';
import { SEVERITIES } from '../protocol/findings';
import { MAX_ANNOTATIONS, type HostAnnotation, type HostAnnotationsParams, type HostAnnotationsResponse } from '../protocol/read-api/annotations';

export type HostAnnotationsQuery = HostAnnotationsParams & { hostId: number; limit?: number };

const findingEventRow = z.object({
  ...effectColumns,
  id: column.int8,
  rule_id: z.string(),
  severity: z.enum(SEVERITIES),
  message: z.string(),
  opened_at: column.timestamp.nullable(),
  resolved_at: column.timestamp.nullable(),
});

const alertEventRow = z.object({
  id: column.int8,
  rule_id: z.string(),
  title: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  annotations: column.labels,
  fired_at: column.timestamp.nullable(),
  resolved_at: column.timestamp.nullable(),
});

const inRange = (at: Date | null, fromMs: number, toMs: number): at is Date =>
  at !== null && new Date(at).getTime() >= fromMs && new Date(at).getTime() < toMs;

/**
 * What happened to a host in [from, to) that its charts mark: inventory changes (each snapshot against the one
 * before), findings opened and resolved, alerts fired and resolved. One query per kind, each by the host's index.
 */
export async function getHostAnnotations(db: Pick<Database, 'sql'>, query: HostAnnotationsQuery): Promise<HostAnnotationsResponse> {
  const { sql } = db;
  const { hostId, from, to } = query;
  if (!(await hostExists(sql, hostId))) throw new NotFoundError(`host ${hostId} not found`);
  const [inventory, findings, alerts] = await Promise.all([
    readInventoryChanges(sql, [hostId], from, to),
    queryRows(
      sql,
      'findings',
      findingEventRow,
      `SELECT f.id, f.rule_id, f.severity, f.message, f.opened_at, f.resolved_at, ${EFFECT_COLUMNS}
         FROM findings f LEFT JOIN finding_effects e ON e.finding_id = f.id
        WHERE f.host_id = $1 AND ((f.opened_at >= $2 AND f.opened_at < $3) OR (f.resolved_at >= $2 AND f.resolved_at < $3))`,
      [hostId, from, to],
    ),
    queryRows(
      sql,
      'alerts',
      alertEventRow,
      `SELECT a.id, a.rule_id, r.title, a.severity, a.annotations, a.fired_at, a.resolved_at
         FROM alerts a LEFT JOIN alert_rules r ON r.id = a.rule_id
        WHERE a.host_id = $1 AND ((a.fired_at >= $2 AND a.fired_at < $3) OR (a.resolved_at >= $2 AND a.resolved_at < $3))`,
      [hostId, from, to],
    ),
  ]);
  const fromMs = from.getTime();
  const toMs = to.getTime();
  const out: HostAnnotation[] = [];
  for (const change of inventory.get(hostId) ?? []) {
    out.push({
      t: change.atMs,
      kind: 'inventory',
      severity: null,
      title: 'Inventory changed',
      detail: change.changes.length ? change.changes.join('; ') : 'details that do not bear on latency changed',
      refId: null,
    });
  }
  for (const row of findings) {
    const title = findRule(row.rule_id)?.title ?? row.rule_id;
    const base = { severity: row.severity, title, detail: row.message, refId: row.id };
    if (inRange(row.opened_at, fromMs, toMs)) out.push({ ...base, t: row.opened_at.getTime(), kind: 'finding-opened' });
    // A resolution reads as what it bought, once measured (lib/findings/effects).
    const resolved = { ...base, detail: effectOf(row)?.summary ?? row.message };
    if (inRange(row.resolved_at, fromMs, toMs)) out.push({ ...resolved, t: row.resolved_at.getTime(), kind: 'finding-resolved' });
  }
  for (const row of alerts) {
    const base = { severity: row.severity, title: row.title ?? row.rule_id, detail: row.annotations.summary ?? '', refId: row.id };
    if (inRange(row.fired_at, fromMs, toMs)) out.push({ ...base, t: row.fired_at.getTime(), kind: 'alert-fired' });
    if (inRange(row.resolved_at, fromMs, toMs)) out.push({ ...base, t: row.resolved_at.getTime(), kind: 'alert-resolved' });
  }
  out.sort((a, b) => a.t - b.t || a.kind.localeCompare(b.kind) || (a.refId ?? 0) - (b.refId ?? 0));
  const limit = query.limit ?? MAX_ANNOTATIONS;
  return {
    hostId,
    from: from.toISOString(),
    to: to.toISOString(),
    annotations: out.slice(Math.max(0, out.length - limit)),
    truncated: out.length > limit,
  };
}
