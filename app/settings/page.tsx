import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { AdminTokenField } from '@/components/settings/admin-token-field';
import { EnrollmentKeys } from '@/components/settings/enrollment-keys';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage() {
  // Rendered per request; the client leaves parse the URL with the same parsers, so a malformed value falls back alike.
  await connection();
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
        <p className="muted">Until login exists, every change made from the dashboard needs the server’s admin token.</p>
      </div>
      <AdminTokenField />
      <EnrollmentKeys />
      <p className="muted">
        Everything here, and the rest of the HTTP API: <Link href="/settings/api">HTTP API reference</Link>.
      </p>
    </>
  );
}
