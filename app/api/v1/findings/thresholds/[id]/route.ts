import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { deleteThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const { id } = findingPathSchema.parse(await context.params);
    await deleteThresholdOverride(await getDb(), id);
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
