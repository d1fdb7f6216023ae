import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getHostDetail } from '@/lib/fleet';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { requireRole } from '@/lib/auth/principal';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    return Response.json(await getHostDetail(await getReadDb(), id, { staleAfterMs: serverEnvironment().staleAfterMs }), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
