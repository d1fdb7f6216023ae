import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { hostLatencySeriesParamsSchema, hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { listHostLatencySeries } from '@/lib/series';

export const dynamic = 'force-dynamic';

/** The latency series names the host reported over [from, to) (default: the last 24 h), busiest first. */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const params = hostLatencySeriesParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await listHostLatencySeries(await getReadDb(), { hostId: id, ...params }), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
