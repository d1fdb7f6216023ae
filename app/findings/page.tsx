import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { findingRulesKey, findingsSummaryKey, toFindingsFilter } from '@/components/findings/findings-filter';
import { FindingsFilters } from '@/components/findings/findings-filters';
import { FindingsGroups } from '@/components/findings/findings-groups';
import { FixedReport } from '@/components/findings/fixed-report';
import { loadFindingsSearchParams } from '@/components/findings/search-params';
import { TopicDocPanel } from '@/components/findings/topic-doc-panel';
import { AccessNote } from '@/components/session/access-note';
import { getReadDb } from '@/lib/db';
import { FINDING_RULES, describeRule } from '@/lib/findings/registry';
import { summarizeFindings } from '@/lib/findings/read/summarize-findings';
import { findingsSummaryQuerySchema } from '@/lib/protocol/findings';

export const metadata: Metadata = { title: 'Findings' };

export default async function FindingsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const filter = toFindingsFilter(await loadFindingsSearchParams(searchParams));
  const queryClient = new QueryClient();
  // The first paint shows the groups the URL asks for; a failed read is left to the client, which shows the error.
  await Promise.all([
    queryClient.prefetchQuery({
      queryKey: findingsSummaryKey(filter),
      queryFn: async () => summarizeFindings(await getReadDb(), findingsSummaryQuerySchema.parse(filter)),
    }),
    queryClient.prefetchQuery({ queryKey: findingRulesKey, queryFn: () => ({ rules: FINDING_RULES.map(describeRule) }) }),
  ]);
  return (
    <>
      <div className="page-head">
        <h1>Findings</h1>
        <p className="muted">
          Misconfigurations that cost inference latency, fleet-wide and grouped by rule: each with what was measured, why it
          matters and the concrete fix.
        </p>
      </div>
      <AccessNote needs="acknowledging findings and changing thresholds" />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <TopicDocPanel />
        <FindingsFilters />
        <FindingsGroups />
        <FixedReport />
      </HydrationBoundary>
    </>
  );
}
