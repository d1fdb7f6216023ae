import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { RegionControls } from '@/components/regions/region-controls';
import { RegionLatency } from '@/components/regions/region-latency';
import { RegionProbes } from '@/components/regions/region-probes';
import { RegionResidency } from '@/components/regions/region-residency';
import { RegionSummary } from '@/components/regions/region-summary';
import { loadRegionSearchParams } from '@/components/regions/search-params';

export const metadata: Metadata = { title: 'Regions' };

export default async function RegionsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  // Parsed here so a malformed link fails the same way on the server as in the browser; the leaves read the URL.
  await loadRegionSearchParams(searchParams);
  return (
    <>
      <div className="page-head">
        <h1>Regions</h1>
        <p className="muted">Regions side by side: latency from merged histograms, host health, probe round trips and residency.</p>
      </div>
      <RegionControls />
      <RegionSummary />
      <RegionLatency />
      <RegionProbes />
      <RegionResidency />
    </>
  );
}
