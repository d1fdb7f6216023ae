import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { compareRegions } from '@/lib/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { regionCompareParamsSchema } from '@/lib/protocol/read-api/regions';
import { requireRole } from '@/lib/auth/principal';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = regionCompareParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await compareRegions(await getReadDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
