import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getFleetPage } from '@/lib/fleet';
import { DEFAULT_FLEET_PAGE_SIZE, fleetParamsSchema } from '@/lib/protocol/read-api/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { requireRole } from '@/lib/auth/principal';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

/** One page of hosts (filters, sort, page and limit in the query) with the fleet's tiles. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = fleetParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const page = await getFleetPage(await getReadDb(), { ...params, limit: params.limit ?? DEFAULT_FLEET_PAGE_SIZE }, { staleAfterMs: serverEnvironment().staleAfterMs });
    return Response.json(page, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
