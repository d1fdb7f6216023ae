import type { Metadata } from 'next';
import type { SearchParams } from 'nuqs/server';
import { AdminTokenField } from '@/components/settings/admin-token-field';
import { EnrollmentKeys } from '@/components/settings/enrollment-keys';
import { loadSettingsSearchParams } from '@/components/settings/search-params';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await loadSettingsSearchParams(searchParams);
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
        <p className="muted">Until login exists, every change made from the dashboard needs the server’s admin token.</p>
      </div>
      <AdminTokenField />
      <EnrollmentKeys />
    </>
  );
}
