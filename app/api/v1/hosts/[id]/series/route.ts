import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { hostIdSchema, hostSeriesParamsSchema, searchParamsObject } from '@/lib/read-api/params';
import { requireReader } from '@/lib/read-api/require-reader';
import { getHostSeries, retentionFromEnv } from '@/lib/series';
import { z } from 'zod';
import { HOUR_MS } from '@/lib/protocol/time';

export const dynamic = 'force-dynamic';

const pathSchema = z.object({ id: hostIdSchema });

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireReader(request);
    const { id } = pathSchema.parse(await context.params);
    const params = hostSeriesParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const to = params.to ?? new Date();
    const from = params.from ?? new Date(to.getTime() - HOUR_MS);
    const db = await getDb();
    const series = await getHostSeries(db.sql, {
      hostId: id,
      metric: params.metric,
      from,
      to,
      maxPoints: params.maxPoints,
      retention: retentionFromEnv(),
    });
    return Response.json(series, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
