import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { summarizeFindings } from '@/lib/findings/read/summarize-findings';
import { findingsSummaryQuerySchema } from '@/lib/protocol/findings';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** Findings counted per rule (by severity, hosts, acknowledged), with the list's filters. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const query = findingsSummaryQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await summarizeFindings(await getReadDb(), query), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
