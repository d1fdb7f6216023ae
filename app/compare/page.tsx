import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { compareChoicesQueryKey } from '@/components/compare/compare-mappers';
import { CompareView } from '@/components/compare/compare-view';
import { loadCompareSearchParams } from '@/components/compare/search-params';
import { getDb } from '@/lib/db';
import { getCompareChoices } from '@/lib/fleet';
import { compareChoicesParamsSchema } from '@/lib/protocol/read-api/compare';
import '@/components/charts/time-charts.css';
import '@/components/host/host-page.css';

export const metadata: Metadata = { title: 'Compare' };

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  // Parsed here so a malformed link fails the same way on the server as in the browser; the leaves read the URL.
  await loadCompareSearchParams(searchParams);
  const queryClient = new QueryClient();
  // The pickers (regions, latency series) paint with the page; the chart loads in the browser.
  await queryClient.prefetchQuery({
    queryKey: compareChoicesQueryKey(''),
    queryFn: async () => getCompareChoices(await getDb(), compareChoicesParamsSchema.parse({})),
  });
  return (
    <>
      <div className="page-head">
        <h1>Compare hosts</h1>
        <p className="muted">One metric across many hosts on one chart: a region&apos;s, a label set&apos;s, hosts you pick, or the whole fleet.</p>
      </div>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <CompareView />
      </HydrationBoundary>
    </>
  );
}
