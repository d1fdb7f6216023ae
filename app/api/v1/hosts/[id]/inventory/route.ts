import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getHostInventory } from '@/lib/fleet';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { hostInventoryParamsSchema } from '@/lib/protocol/read-api/inventory';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** The host's inventory as of `to` and its change history over [from, to) (default: the last 90 days). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const params = hostInventoryParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getHostInventory(await getReadDb(), { hostId: id, ...params }), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
