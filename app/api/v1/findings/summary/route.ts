import { getReadDb } from '@/lib/db';
import { summarizeFindings } from '@/lib/findings/read/summarize-findings';
import { route } from '@/lib/http/route';
import { findingsSummaryQuerySchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

/** Findings counted per rule (by severity, hosts, acknowledged), with the list's filters. */
export const GET = route({
  role: 'viewer',
  query: findingsSummaryQuerySchema,
  handle: async ({ query }) => summarizeFindings(await getReadDb(), query),
});
