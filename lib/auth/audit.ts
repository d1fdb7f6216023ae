import 'server-only';
import type { Database } from '../db';
import type { AuditActorKind, AuditEntryView } from '../protocol/auth';

type PrismaDb = Pick<Database, 'prisma'>;

/** Who did it: a principal, the system itself, nobody (a refused sign-in), or an agent. */
export interface AuditActor {
  kind: AuditActorKind;
  userId: number | null;
  name: string;
}

export interface AuditEvent {
  /** What was done, verb last: `alert-rule.create`, `finding.acknowledge`, `user.disable`. */
  action: string;
  /** What it was done to: `alert rule p99-generate`, `finding 42`. */
  target: string;
  /** What changed, never a secret: the route leaves passwords, tokens and webhook URLs out. */
  detail?: Record<string, unknown>;
}

/** Records a write: who (the actor), what, when, and from where (the client address the request came from). */
export async function recordAudit(db: PrismaDb, actor: AuditActor, clientIp: string, event: AuditEvent, now = new Date()): Promise<void> {
  await db.prisma.auditEntry.create({
    data: {
      at: now,
      actorKind: actor.kind,
      actorId: actor.userId,
      actorName: actor.name,
      action: event.action,
      target: event.target.slice(0, 300),
      ip: clientIp.slice(0, 100),
      detail: (event.detail ?? {}) as object,
    },
  });
}

export async function listAudit(db: PrismaDb, query: { limit: number; before?: number }): Promise<AuditEntryView[]> {
  const rows = await db.prisma.auditEntry.findMany({
    where: query.before ? { id: { lt: BigInt(query.before) } } : {},
    orderBy: { id: 'desc' },
    take: query.limit,
  });
  return rows.map((row) => ({
    id: Number(row.id),
    at: row.at.toISOString(),
    actorKind: row.actorKind as AuditActorKind,
    actorName: row.actorName,
    action: row.action,
    target: row.target,
    ip: row.ip,
    detail: (row.detail ?? {}) as Record<string, unknown>,
  }));
}
