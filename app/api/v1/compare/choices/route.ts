import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getCompareChoices } from '@/lib/fleet';
import { compareChoicesParamsSchema } from '@/lib/protocol/read-api/compare';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** The compare page's pickers: regions, latency series names, and hosts matching `q`. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const params = compareChoicesParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getCompareChoices(await getReadDb(), params), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
