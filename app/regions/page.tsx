import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { RESIDENCY_FINDINGS, findingsKey, regionCompareKey, residencyPoliciesKey } from '@/components/query-keys';
import { RegionControls } from '@/components/regions/region-controls';
import { RegionLatency } from '@/components/regions/region-latency';
import { compareRangeOf, toRegionCompareQuery, type RegionCompareQuery } from '@/components/regions/region-mappers';
import { RegionProbes } from '@/components/regions/region-probes';
import { RegionResidency } from '@/components/regions/region-residency';
import { RegionSummary } from '@/components/regions/region-summary';
import { loadRegionSearchParams } from '@/components/regions/search-params';
import { getReadDb } from '@/lib/db';
import { listFindings } from '@/lib/findings/read/list-findings';
import { listResidencyPolicies } from '@/lib/findings/store/residency-policies';
import { compareRegions } from '@/lib/fleet';
import { findingsQuerySchema } from '@/lib/protocol/findings';
import { regionCompareParamsSchema } from '@/lib/protocol/read-api/regions';

export const metadata: Metadata = { title: 'Regions' };

async function readRegionComparison(query: RegionCompareQuery) {
  return compareRegions(await getReadDb(), regionCompareParamsSchema.parse(compareRangeOf(query, Date.now())));
}

export default async function RegionsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = toRegionCompareQuery(await loadRegionSearchParams(searchParams));
  const queryClient = new QueryClient();
  // The first paint shows the comparison, so a refresh does not jump; a failed read is left to the client.
  await Promise.all([
    queryClient.prefetchQuery({
      queryKey: regionCompareKey(query),
      queryFn: () => readRegionComparison(query),
    }),
    queryClient.prefetchQuery({
      queryKey: residencyPoliciesKey(),
      queryFn: async () => ({ policies: await listResidencyPolicies(await getReadDb()) }),
    }),
    queryClient.prefetchQuery({
      queryKey: findingsKey(RESIDENCY_FINDINGS),
      queryFn: async () => listFindings(await getReadDb(), findingsQuerySchema.parse(RESIDENCY_FINDINGS)),
    }),
  ]);
  return (
    <>
      <div className="page-head">
        <h1>Regions</h1>
        <p className="muted">Regions side by side: latency from merged histograms, host health, probe round trips and residency.</p>
      </div>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <RegionControls />
        <RegionSummary />
        <RegionLatency />
        <RegionProbes />
        <RegionResidency />
      </HydrationBoundary>
    </>
  );
}
