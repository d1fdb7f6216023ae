import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { HostInventory } from '@/components/host/host-inventory';
import { HostView } from '@/components/host/host-view';
import { hostFindingsQuery, hostQueryKey } from '@/components/host/host-queries';
import { getReadDb } from '@/lib/db';
import { NotFoundError } from '@/lib/errors';
import { listFindings } from '@/lib/findings/read/list-findings';
import { getHostDetail, getHostInventory } from '@/lib/fleet';
import { findingsQuerySchema } from '@/lib/protocol/findings';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { hostInventoryParamsSchema } from '@/lib/protocol/read-api/inventory';
import { serverEnvironment } from '@/lib/server/environment';
import '@/components/charts/time-charts.css';
import '@/components/host/host-page.css';

type Props = { params: Promise<{ id: string }> };

async function hostIdOf(params: Props['params']): Promise<number> {
  const parsed = hostPathSchema.safeParse(await params);
  if (!parsed.success) notFound();
  return parsed.data.id;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = await hostIdOf(params);
  const host = await getHostDetail(await getReadDb(), id, { staleAfterMs: serverEnvironment().staleAfterMs }).catch(() => null);
  return { title: host ? host.hostname : `Host ${id}` };
}

export default async function HostPage({ params }: Props) {
  // The leaves read the range and panels from the URL; the page itself needs only the host.
  const hostId = await hostIdOf(params);
  const db = await getReadDb();
  const queryClient = new QueryClient();
  try {
    queryClient.setQueryData(hostQueryKey(hostId), await getHostDetail(db, hostId, { staleAfterMs: serverEnvironment().staleAfterMs }));
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  // The header and findings paint with the page (a failed read is left to the client); charts load in the browser.
  const [, inventory] = await Promise.all([
    queryClient.prefetchQuery({
      queryKey: ['findings', hostFindingsQuery(hostId)],
      queryFn: () => listFindings(db, findingsQuerySchema.parse({ ...hostFindingsQuery(hostId), limit: String(hostFindingsQuery(hostId).limit) })),
    }),
    getHostInventory(db, { hostId, ...hostInventoryParamsSchema.parse({}) }).then(
      (data) => ({ data, error: null }),
      (error: unknown) => {
        console.error(`host ${hostId}: reading the inventory failed:`, error);
        return { data: null, error: new Error('the server could not read it; its log says why') };
      },
    ),
  ]);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <HostView hostId={hostId} inventory={<HostInventory data={inventory.data} error={inventory.error} />} />
    </HydrationBoundary>
  );
}
