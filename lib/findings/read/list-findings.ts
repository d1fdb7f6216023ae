import { z } from 'zod';
import type { Database } from '../../db/open';
import { queryRow, queryRows } from '../../db/rows';
import { ConflictError, NotFoundError } from '../../errors';
import {
  type AcknowledgeInput,
  type Finding,
  type FindingsQuery,
  type FindingsResponse,
  type FixedFindingsQuery,
  type FixedFindingsResponse,
} from '../../protocol/findings';
import { EFFECT_COLUMNS, effectColumns, effectOf } from '../store/finding-effects';
import { clearFindingAcknowledgement, findingRow, setFindingAcknowledgement } from '../store/findings';
import { docsPathOf, findRule } from '../registry';

const listedRow = findingRow.extend({ ...effectColumns, hostname: z.string().nullable() });
type FindingRow = z.output<typeof listedRow>;

const count = z.number().int();
const fixedTotalsRow = z.object({ resolved: count, measured: count, improved: count, worse: count, no_change: count, not_enough: count });

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toFinding(r: FindingRow, nowMs: number): Finding {
  const rule = findRule(r.rule_id);
  const ackLive = r.ack_at !== null && (r.ack_expires_at === null || r.ack_expires_at.getTime() > nowMs);
  return {
    id: r.id,
    ruleId: r.rule_id,
    title: rule?.title ?? r.rule_id,
    category: rule?.category ?? 'agent',
    severity: r.severity,
    state: r.state,
    hostId: r.host_id,
    hostname: r.hostname,
    region: r.region,
    subject: r.subject,
    message: r.message,
    remedy: r.remedy,
    docsPath: docsPathOf(r.rule_id),
    evidence: r.evidence,
    value: r.value,
    peakValue: r.peak_value,
    firstSeenAt: r.first_seen_at.toISOString(),
    openedAt: iso(r.opened_at),
    resolvedAt: iso(r.resolved_at),
    updatedAt: r.last_evaluated_at.toISOString(),
    acknowledgement: ackLive ? { at: r.ack_at!.toISOString(), reason: r.ack_reason ?? '', expiresAt: iso(r.ack_expires_at) } : null,
    effect: effectOf(r),
  };
}

const SELECT = `SELECT f.*, h.hostname, ${EFFECT_COLUMNS}
  FROM findings f LEFT JOIN hosts h ON h.id = f.host_id LEFT JOIN finding_effects e ON e.finding_id = f.id`;
const SEVERITY_ORDER = `CASE f.severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END`;

type FindingsFilter = Omit<FindingsQuery, 'limit' | 'rule'> & { rule?: string };

/** The SQL condition over `f` (findings) and `h` (hosts) of a findings query; parameters numbered after `params`. */
export function findingsWhere(query: FindingsFilter, params: unknown[]): string {
  const where: string[] = [];
  const add = (condition: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (query.host !== undefined) add((p) => `f.host_id = ${p}`, query.host);
  if (query.region !== undefined) add((p) => `f.region = ${p}`, query.region);
  if (query.labels !== undefined) add((p) => `h.labels @> ${p}::jsonb`, JSON.stringify(query.labels));
  if (query.rule !== undefined) add((p) => `f.rule_id = ${p}`, query.rule);
  if (query.severity !== undefined) add((p) => `f.severity = ${p}`, query.severity);
  if (query.state !== 'all') add((p) => `f.state = ${p}`, query.state);
  if (query.to) add((p) => `f.first_seen_at < ${p}`, query.to);
  if (query.from) add((p) => `(f.resolved_at IS NULL OR f.resolved_at >= ${p})`, query.from);
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}

/** Findings matching the query, most severe and newest first. */
export async function listFindings(db: Pick<Database, 'sql'>, query: FindingsQuery, now = new Date()): Promise<FindingsResponse> {
  const params: unknown[] = [];
  const where = findingsWhere(query, params);
  params.push(query.limit + 1);
  const rows = await queryRows(
    db.sql,
    'findings',
    listedRow,
    `${SELECT} ${where}
     ORDER BY (f.state = 'resolved'), ${SEVERITY_ORDER}, f.first_seen_at DESC, f.id DESC LIMIT $${params.length}`,
    params,
  );
  return { findings: rows.slice(0, query.limit).map((r) => toFinding(r, now.getTime())), truncated: rows.length > query.limit };
}

/** Occurrences resolved in [from, to), newest first, with what each fix bought, and the range's totals by outcome. */
export async function listFixedFindings(db: Pick<Database, 'sql'>, query: FixedFindingsQuery, now = new Date()): Promise<FixedFindingsResponse> {
  const params: unknown[] = [query.from, query.to];
  const where = [`f.state = 'resolved'`, 'f.host_id IS NOT NULL', 'f.resolved_at >= $1', 'f.resolved_at < $2'];
  if (query.region !== undefined) where.push(`f.region = $${params.push(query.region)}`);
  if (query.labels !== undefined) where.push(`h.labels @> $${params.push(JSON.stringify(query.labels))}::jsonb`);
  const from = `FROM findings f LEFT JOIN hosts h ON h.id = f.host_id LEFT JOIN finding_effects e ON e.finding_id = f.id WHERE ${where.join(' AND ')}`;
  const [rows, totals] = await Promise.all([
    queryRows(db.sql, 'findings', listedRow, `SELECT f.*, h.hostname, ${EFFECT_COLUMNS} ${from} ORDER BY f.resolved_at DESC, f.id DESC LIMIT $${params.length + 1}`, [
      ...params,
      query.limit + 1,
    ]),
    queryRow(
      db.sql,
      'findings',
      fixedTotalsRow,
      `SELECT count(*)::int AS resolved, count(*) FILTER (WHERE e.status = 'measured')::int AS measured,
              count(*) FILTER (WHERE e.effect->>'outcome' = 'improved')::int AS improved,
              count(*) FILTER (WHERE e.effect->>'outcome' = 'worse')::int AS worse,
              count(*) FILTER (WHERE e.effect->>'outcome' = 'no-change')::int AS no_change,
              count(*) FILTER (WHERE e.effect->>'outcome' = 'not-enough-requests')::int AS not_enough
         ${from}`,
      params,
    ),
  ]);
  return {
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    findings: rows.slice(0, query.limit).map((r) => toFinding(r, now.getTime())),
    truncated: rows.length > query.limit,
    totals: {
      resolved: totals!.resolved,
      measured: totals!.measured,
      improved: totals!.improved,
      worse: totals!.worse,
      noChange: totals!.no_change,
      notEnoughRequests: totals!.not_enough,
    },
  };
}

export async function getFinding(db: Pick<Database, 'sql'>, id: number, now = new Date()): Promise<Finding> {
  const [row] = await queryRows(db.sql, 'findings', listedRow, `${SELECT} WHERE f.id = $1`, [id]);
  if (!row) throw new NotFoundError(`finding ${id} not found`);
  return toFinding(row, now.getTime());
}

/** Marks an unresolved finding as known, with why; it lapses at `expiresAt` and the finding shows as new again. */
export async function acknowledgeFinding(db: Pick<Database, 'sql'>, id: number, input: AcknowledgeInput, now = new Date()): Promise<Finding> {
  const acknowledged = await setFindingAcknowledgement(db.sql, id, {
    at: now,
    reason: input.reason,
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
  });
  if (!acknowledged) {
    await getFinding(db, id, now);
    throw new ConflictError(`finding ${id} is resolved; there is nothing to acknowledge`);
  }
  return getFinding(db, id, now);
}

export async function clearAcknowledgement(db: Pick<Database, 'sql'>, id: number, now = new Date()): Promise<Finding> {
  await clearFindingAcknowledgement(db.sql, id);
  return getFinding(db, id, now);
}
