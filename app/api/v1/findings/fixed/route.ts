import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { listFixedFindings } from '@/lib/findings/read/list-findings';
import { fixedFindingsQuerySchema } from '@/lib/protocol/findings';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const query = fixedFindingsQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await listFixedFindings(await getReadDb(), query), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
