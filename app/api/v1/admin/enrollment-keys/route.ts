import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { createEnrollmentKey, listEnrollmentKeys } from '@/lib/auth/enrollment-keys';
import { enrollmentKeyInputSchema } from '@/lib/auth/enrollment-key-input';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    return Response.json({ keys: await listEnrollmentKeys(await getDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a key; the plaintext `key` is in this response only. */
export async function POST(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = enrollmentKeyInputSchema.parse(await readJsonBody(request));
    return Response.json(await createEnrollmentKey(await getDb(), input), { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
