import { audit, requireRole } from '@/lib/auth/principal';
import { createEnrollmentKey, listEnrollmentKeys } from '@/lib/auth/enrollment-keys';
import { enrollmentKeyInputSchema } from '@/lib/auth/enrollment-key-input';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'admin');
    return Response.json({ keys: await listEnrollmentKeys(await getDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** Creates a key; the plaintext `key` is in this response only. */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'admin');
    const input = enrollmentKeyInputSchema.parse(await readJsonBody(request));
    const result = await createEnrollmentKey(await getDb(), input);
    await audit(request, principal, { action: 'enrollment-key.create', target: `enrollment key ${result.name} (${result.region})` });
    return Response.json(result, { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
