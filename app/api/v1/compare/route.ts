import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { compareParamsSchema } from '@/lib/protocol/read-api/compare';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { compareHosts } from '@/lib/series';

export const dynamic = 'force-dynamic';

/** One metric of many hosts (region, labels, picked ids or the fleet) on one time axis, the top `limit` by value. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = compareParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await compareHosts(await getReadDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
