import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { countDemoHosts } from '@/lib/fleet';
import { requireRole } from '@/lib/auth/principal';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

/** How many demo hosts (labelled demo=true) there are and how many report: the dashboard's demo banner. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const counts = await countDemoHosts(await getReadDb(), { now: new Date(), staleAfterMs: serverEnvironment().staleAfterMs });
    return Response.json(counts, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
