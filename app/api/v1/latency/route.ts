import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { latencyParamsSchema } from '@/lib/protocol/read-api/latency';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { requireRole } from '@/lib/auth/principal';
import { getLatencyQuantiles } from '@/lib/series';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = latencyParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getLatencyQuantiles(await getReadDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
