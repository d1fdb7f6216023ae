import { enrollHost } from '@/lib/auth/enroll-host';
import { getDb } from '@/lib/db';
import { bearerToken } from '@/lib/auth/tokens';
import { InvalidJsonError, toErrorResponse } from '@/lib/errors';
import { enrollRequestSchema } from '@/lib/protocol';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** POST /api/v1/enroll with `Authorization: Bearer <enrollment key>` → the host's own token. */
export async function POST(request: Request) {
  try {
    const key = bearerToken(request.headers.get('authorization'));
    const json = await request.json().catch(() => {
      throw new InvalidJsonError('body is not valid JSON');
    });
    const input = enrollRequestSchema.parse(json);
    return Response.json(await enrollHost(await getDb(), key, input), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
