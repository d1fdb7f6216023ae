import { audit, requireRole } from '@/lib/auth/principal';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { deleteThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'editor');
    const { id } = findingPathSchema.parse(await context.params);
    await deleteThresholdOverride(await getDb(), id);
    await audit(request, principal, { action: 'threshold-override.delete', target: `threshold override ${id}` });
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
