import { enrollHost, requireEnrollmentKey } from '@/lib/auth/enroll-host';
import { limitEnrollAttempt } from '@/lib/auth/enroll-rate-limit';
import { getDb } from '@/lib/db';
import { bearerToken } from '@/lib/auth/tokens';
import { clientAddressOf } from '@/lib/http/client-address';
import { readJsonBody } from '@/lib/http/json-body';
import { route } from '@/lib/http/route';
import { MAX_ENROLL_BODY_BYTES, enrollRequestSchema } from '@/lib/protocol';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** POST /api/v1/enroll with `Authorization: Bearer <enrollment key>` → the host's own token. Rate, then key, then body. */
export const POST = route({
  handle: async ({ request }) => {
    const clientIp = clientAddressOf(request.headers);
    limitEnrollAttempt(clientIp);
    const db = await getDb();
    const key = await requireEnrollmentKey(db, bearerToken(request.headers.get('authorization')));
    const input = enrollRequestSchema.parse(await readJsonBody(request, MAX_ENROLL_BODY_BYTES));
    return enrollHost(db, key, input, clientIp);
  },
});
