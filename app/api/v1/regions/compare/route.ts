import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { compareRegions } from '@/lib/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { regionCompareParamsSchema } from '@/lib/protocol/read-api/regions';
import { requireReader } from '@/lib/auth/require-reader';
import { DAY_MS } from '@/lib/protocol/time';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    const params = regionCompareParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    const to = params.to ?? new Date();
    const from = params.from ?? new Date(to.getTime() - DAY_MS);
    const db = await getDb();
    return Response.json(await compareRegions(db.sql, { from, to }), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
