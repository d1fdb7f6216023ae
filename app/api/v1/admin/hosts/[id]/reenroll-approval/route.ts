import { audit, requireRole } from '@/lib/auth/principal';
import { approveReenrollment } from '@/lib/auth/enroll-host';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Lets this host's next enrollment through without proof, once, for a short while (a reinstalled machine). */
export async function POST(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'admin');
    const { id } = hostPathSchema.parse(await context.params);
    const approval = await approveReenrollment(await getDb(), id);
    await audit(request, principal, { action: 'host.approve-reenroll', target: `host ${id} (${approval.hostname})`, detail: { until: approval.approvedUntil } });
    return Response.json(approval, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
