import { toErrorResponse } from '@/lib/errors';
import { readWebBodyLimited } from '@/lib/ingest/http/web-body';
import { ingestWithProcessDatabase } from '@/lib/server/process-ingest';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(request: Request) {
  try {
    const body = await readWebBodyLimited(request.body, request.headers.get('content-length'));
    const output = await ingestWithProcessDatabase({
      authorization: request.headers.get('authorization'),
      contentEncoding: request.headers.get('content-encoding'),
      contentType: request.headers.get('content-type'),
      body,
    });
    return Response.json(output.body, { status: output.status, headers: { ...output.headers, 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
