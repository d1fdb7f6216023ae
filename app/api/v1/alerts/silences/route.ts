import { audit, requireRole } from '@/lib/auth/principal';
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
    await requireRole(request, 'viewer');
    const query = silencesQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json({ silences: await listSilences(await getReadDb(), query) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** `{ "matchers": [{ "name": "host", "value": "gpu-1" }], "endsAt": "...", "comment": "...", "createdBy": "..." }`. */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'editor');
    const input = silenceInputSchema.parse(await readJsonBody(request));
    const result = await createSilence(await getDb(), input);
    await audit(request, principal, { action: 'silence.create', target: `silence ${result.id}` });
    return Response.json(result, { status: 201 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
