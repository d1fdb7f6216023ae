import { readBodyLimited } from '@/lib/http/limited-body';
import { route } from '@/lib/http/route';
import { ingestWithProcessDatabase } from '@/lib/server/process-ingest';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const POST = route({
  handle: async ({ request }) => {
    const output = await ingestWithProcessDatabase({
      authorization: request.headers.get('authorization'),
      contentEncoding: request.headers.get('content-encoding'),
      contentType: request.headers.get('content-type'),
      body: (maxBytes) => readBodyLimited(request.body, request.headers.get('content-length'), maxBytes),
    });
    return Response.json(output.body, { status: output.status, headers: output.headers });
  },
});
