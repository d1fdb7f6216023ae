import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { latencyParamsSchema, type LatencyScope } from '@/lib/protocol/read-api/latency';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { requireReader } from '@/lib/auth/require-reader';
import { getLatencyQuantiles, retentionFromEnv } from '@/lib/series';
import { HOUR_MS } from '@/lib/protocol/time';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    const params = latencyParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const scope: LatencyScope =
      params.host !== undefined
        ? { kind: 'host', hostId: params.host }
        : params.region !== undefined
          ? { kind: 'region', region: params.region }
          : params.labels !== undefined
            ? { kind: 'labels', labels: params.labels }
            : { kind: 'fleet' };
    const to = params.to ?? new Date();
    const from = params.from ?? new Date(to.getTime() - HOUR_MS);
    const db = await getDb();
    const latency = await getLatencyQuantiles(db.sql, {
      scope,
      name: params.name,
      from,
      to,
      points: params.points,
      retention: retentionFromEnv(),
    });
    return Response.json(latency, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
