import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listFindings } from '@/lib/findings/read/list-findings';
import { findingsQuerySchema } from '@/lib/protocol/findings';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** The host's findings; the same filters as /api/v1/findings (state=all gives its history). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const query = findingsQuerySchema.parse({ ...searchParamsObject(new URL(request.url).searchParams), host: String(id) });
    return Response.json(await listFindings(await getReadDb(), query), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
