import { toErrorResponse } from '@/lib/errors';
import { readBodyLimited } from '@/lib/http/limited-body';
import { ingestWithProcessDatabase } from '@/lib/server/process-ingest';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(request: Request) {
  try {
    const output = await ingestWithProcessDatabase({
      authorization: request.headers.get('authorization'),
      contentEncoding: request.headers.get('content-encoding'),
      contentType: request.headers.get('content-type'),
      body: (maxBytes) => readBodyLimited(request.body, request.headers.get('content-length'), maxBytes),
    });
    return Response.json(output.body, { status: output.status, headers: { ...output.headers, 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
