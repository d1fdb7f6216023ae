import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getFleetSummary, PROMETHEUS_CONTENT_TYPE, renderFleetMetrics } from '@/lib/fleet';
import { requireReader } from '@/lib/read-api/require-reader';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    const db = await getDb();
    const text = renderFleetMetrics(await getFleetSummary(db.sql));
    return new Response(text, { headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
