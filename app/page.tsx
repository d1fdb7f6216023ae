import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { FleetFilters } from '@/components/fleet/fleet-filters';
import { fleetQueryKey, fleetQueryString, toFleetQuery } from '@/components/fleet/fleet-query';
import { FleetTable } from '@/components/fleet/fleet-table';
import { FleetTiles } from '@/components/fleet/fleet-tiles';
import { loadFleetSearchParams } from '@/components/fleet/search-params';
import { getDb } from '@/lib/db';
import { getFleetPage } from '@/lib/fleet';
import { fleetParamsSchema } from '@/lib/protocol/read-api/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const metadata: Metadata = { title: 'Fleet' };

export default async function FleetPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = toFleetQuery(await loadFleetSearchParams(searchParams));
  const queryClient = new QueryClient();
  // The first paint shows the table the URL asks for; a failed read is left to the client, which shows the error.
  await queryClient.prefetchQuery({
    queryKey: fleetQueryKey(query),
    queryFn: async () => {
      const params = fleetParamsSchema.parse(searchParamsObject(new URLSearchParams(fleetQueryString(query))));
      return getFleetPage(await getDb(), params);
    },
  });
  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <p className="muted">
          Steal is CPU time a noisy neighbour took from your vCPUs; iowait is CPU time spent waiting for disk; both from each
          host&apos;s newest report. p99 merges each host&apos;s request histograms over the last 15 minutes.
        </p>
      </div>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <FleetTiles />
        <FleetFilters />
        <FleetTable />
      </HydrationBoundary>
    </>
  );
}
