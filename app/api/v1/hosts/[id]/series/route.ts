import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { hostSeriesParamsSchema } from '@/lib/protocol/read-api/series';
import { requireRole } from '@/lib/auth/principal';
import { getHostSeries } from '@/lib/series';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const params = hostSeriesParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const series = await getHostSeries(await getReadDb(), { hostId: id, ...params });
    return Response.json(series, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
