import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { connection } from 'next/server';
import { sloKey } from '@/components/query-keys';
import { SloObjectives } from '@/components/slo/slo-objectives';
import { readSloStatus } from '@/lib/alerts/read/slo-status';
import { getReadDb } from '@/lib/db';

export const metadata: Metadata = { title: 'SLOs' };

export default async function SloPage() {
  // Rendered per request: the objectives are live.
  await connection();
  const queryClient = new QueryClient();
  // The first paint shows the objectives; a failed read is left to the client.
  await queryClient.prefetchQuery({ queryKey: sloKey(), queryFn: async () => readSloStatus((await getReadDb()).sql, new Date()) });
  return (
    <>
      <div className="page-head">
        <h1>SLOs</h1>
        <p className="muted">
          Time to first token, inter-token latency and request latency against the objectives the alert rules hold, per region, series and
          model.
        </p>
      </div>
      <HydrationBoundary state={dehydrate(queryClient)}>
        <SloObjectives />
      </HydrationBoundary>
    </>
  );
}
