import { requireReader } from '@/lib/auth/require-reader';
import { toErrorResponse } from '@/lib/errors';
import { openApiDocument } from '@/lib/openapi/document';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The OpenAPI 3.1 document of every route, generated from the zod schemas the routes parse with. */
export async function GET(request: Request) {
  try {
    await requireReader(request);
    return Response.json(openApiDocument(), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
