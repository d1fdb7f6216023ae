import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getFleetSparklines } from '@/lib/fleet';
import { sparklineParamsSchema } from '@/lib/protocol/read-api/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { requireRole } from '@/lib/auth/principal';

export const dynamic = 'force-dynamic';

/** `?ids=1,2,3&metric=steal|p99[&latency=name]`: the last hour per host, a point per minute. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = sparklineParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getFleetSparklines(await getReadDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
