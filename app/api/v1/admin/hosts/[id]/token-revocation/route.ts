import { revokeHostToken } from '@/lib/auth/authenticate-host';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Stops the host's token (a stolen token, a decommissioned machine); it stays revoked until a re-enrollment is approved. */
export const POST = route({
  role: 'admin',
  params: hostPathSchema,
  status: 204,
  handle: async ({ params }) => revokeHostToken(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'host.revoke-token', target: `host ${params.id}` }),
});
