import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { explainLatency } from '@/lib/findings/latency/read/explain-latency';
import { latencyExplainedParamsSchema } from '@/lib/protocol/findings';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** Did the host's p99 of `name` regress over [from, to) (default the last hour) against the 24 whole hours before, and why. */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const params = latencyExplainedParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const explanation = await explainLatency((await getReadDb()).sql, { hostId: id, ...params });
    return Response.json(explanation, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
