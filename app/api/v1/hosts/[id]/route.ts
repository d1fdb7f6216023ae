import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getHostDetail } from '@/lib/fleet';
import { hostIdSchema } from '@/lib/read-api/params';
import { requireReader } from '@/lib/read-api/require-reader';
import { z } from 'zod';

export const dynamic = 'force-dynamic';

const pathSchema = z.object({ id: hostIdSchema });

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireReader(request);
    const { id } = pathSchema.parse(await context.params);
    const db = await getDb();
    return Response.json(await getHostDetail(db.sql, id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
