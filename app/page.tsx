import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { Suspense } from 'react';
import type { SearchParams } from 'nuqs/server';
import { FleetFilters } from '@/components/fleet/fleet-filters';
import { fleetQueryKey, fleetQueryString, toFleetQuery } from '@/components/fleet/fleet-query';
import { FleetTable } from '@/components/fleet/fleet-table';
import { FleetTiles } from '@/components/fleet/fleet-tiles';
import { loadFleetSearchParams } from '@/components/fleet/search-params';
import { getReadDb } from '@/lib/db';
import { getFleetPage } from '@/lib/fleet';
import { fleetParamsSchema } from '@/lib/protocol/read-api/fleet';
import { searchParamsObject } from '@/lib/protocol/read-api/params';
import { serverEnvironment } from '@/lib/server/environment';

export const metadata: Metadata = { title: 'Fleet' };

type Props = { searchParams: Promise<SearchParams> };

export default function FleetPage({ searchParams }: Props) {
  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <p className="muted">
          Steal is CPU time a noisy neighbour took from your vCPUs; iowait is CPU time spent waiting for disk; both from each
          host&apos;s newest report. A host&apos;s p99 is its worst minute of the last 15 rolled up (the newest one or two
          minutes are not yet); the fleet p99 tile merges every host&apos;s request histograms over the 15 minutes.
        </p>
      </div>
      {/* The page's frame paints at once; the host table streams in when its read is done. */}
      <Suspense fallback={<FleetPlaceholder />}>
        <FleetData searchParams={searchParams} />
      </Suspense>
    </>
  );
}

/** The tiles' and the table's shape while the first page is read, so nothing moves when it arrives. */
function FleetPlaceholder() {
  return (
    <div aria-busy="true" aria-label="Loading the fleet">
      <section className="tiles" aria-hidden="true">
        {['Hosts reporting', 'Alerts firing', 'Misconfigured hosts', 'Fleet p99'].map((label) => (
          <div key={label} className="tile">
            <p className="tile-label">{label}</p>
            <p className="tile-value">…</p>
            <div className="tile-note" />
          </div>
        ))}
      </section>
    </div>
  );
}

async function FleetData({ searchParams }: Props) {
  const query = toFleetQuery(await loadFleetSearchParams(searchParams));
  const queryClient = new QueryClient();
  // The table the URL asks for streams in with the page's HTML; a failed read is left to the client, which shows the error.
  await queryClient.prefetchQuery({
    queryKey: fleetQueryKey(query),
    queryFn: async () => {
      const params = fleetParamsSchema.parse(searchParamsObject(new URLSearchParams(fleetQueryString(query))));
      return getFleetPage(await getReadDb(), params, { staleAfterMs: serverEnvironment().staleAfterMs });
    },
  });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <FleetTiles />
      <FleetFilters />
      <FleetTable />
    </HydrationBoundary>
  );
}
