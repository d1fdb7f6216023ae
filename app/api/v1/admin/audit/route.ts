import { listAudit } from '@/lib/auth/audit';
import { requireRole } from '@/lib/auth/principal';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { auditQuerySchema } from '@/lib/protocol/auth';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** The audit log, newest first: `?limit=200&before=<id>` pages back. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'admin');
    const query = auditQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json({ entries: await listAudit(await getDb(), query) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
