import { getReadDb } from '@/lib/db';
import { listFindings } from '@/lib/findings/read/list-findings';
import { route } from '@/lib/http/route';
import { findingsQuerySchema } from '@/lib/protocol/findings';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** The host's findings; the same filters as /api/v1/findings (state=all gives its history). */
export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  handle: async ({ request, params }) => {
    const query = findingsQuerySchema.parse({ ...searchParamsObject(new URL(request.url).searchParams), host: String(params.id) });
    return listFindings(await getReadDb(), query);
  },
});
