import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { connection } from 'next/server';
import { compareChoicesQueryKey } from '@/components/compare/compare-mappers';
import { CompareView } from '@/components/compare/compare-view';
import { getReadDb } from '@/lib/db';
import { getCompareChoices } from '@/lib/fleet';
import { compareChoicesParamsSchema } from '@/lib/protocol/read-api/compare';
import '@/components/charts/time-charts.css';
import '@/components/host/host-page.css';

export const metadata: Metadata = { title: 'Compare' };

export default async function ComparePage() {
  // Rendered per request; the client leaves parse the URL with the same parsers, so a malformed value falls back alike.
  await connection();
  const queryClient = new QueryClient();
  // The pickers (regions, latency series) paint with the page; the chart loads in the browser.
  await queryClient.prefetchQuery({
    queryKey: compareChoicesQueryKey(''),
    queryFn: async () => getCompareChoices(await getReadDb(), compareChoicesParamsSchema.parse({})),
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
