import { approveReenrollment } from '@/lib/auth/enroll-host';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Lets this host's next enrollment through without proof, once, for a short while (a reinstalled machine). */
export const POST = route({
  role: 'admin',
  params: hostPathSchema,
  handle: async ({ params }) => approveReenrollment(await getDb(), params.id),
  audit: ({ params }, approval) => ({ action: 'host.approve-reenroll', target: `host ${params.id} (${approval.hostname})`, detail: { until: approval.approvedUntil } }),
});
