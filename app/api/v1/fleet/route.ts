import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getFleetSummary } from '@/lib/fleet';
import { fleetParamsSchema } from '@/lib/protocol/read-api/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { requireReader } from '@/lib/auth/require-reader';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    const params = fleetParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getFleetSummary(await getDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
