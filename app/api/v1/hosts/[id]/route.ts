import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getHostDetail } from '@/lib/fleet';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { requireReader } from '@/lib/auth/require-reader';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireReader(request);
    const { id } = hostPathSchema.parse(await context.params);
    return Response.json(await getHostDetail(await getReadDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
