import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { AlertsTabs } from '@/components/alerts/alerts-tabs';
import { loadAlertsSearchParams } from '@/components/alerts/search-params';
import { AdminTokenField } from '@/components/settings/admin-token-field';

export const metadata: Metadata = { title: 'Alerts' };

export default async function AlertsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  // Parsed here so a malformed link fails the same way on the server as in the browser; the leaves read the URL.
  await loadAlertsSearchParams(searchParams);
  return (
    <>
      <div className="page-head">
        <h1>Alerts</h1>
        <p className="muted">Rules over the series and findings, firing → resolved with their history; where notifications go and whether they arrived.</p>
      </div>
      <AdminTokenField compact />
      <AlertsTabs />
    </>
  );
}
