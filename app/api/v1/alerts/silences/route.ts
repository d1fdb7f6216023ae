import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { requireReader } from '@/lib/auth/require-reader';
import { createSilence, listSilences } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { silenceInputSchema, silencesQuerySchema } from '@/lib/protocol/alerts';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    await requireReader(request);
    const query = silencesQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json({ silences: await listSilences(await getReadDb(), query) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** `{ "matchers": [{ "name": "host", "value": "gpu-1" }], "endsAt": "...", "comment": "...", "createdBy": "..." }`. Admin token. */
export async function POST(request: Request) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const input = silenceInputSchema.parse(await readJsonBody(request));
    return Response.json(await createSilence(await getDb(), input), { status: 201 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
