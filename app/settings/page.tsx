import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { EnrollmentKeys } from '@/components/settings/enrollment-keys';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage() {
  // Rendered per request; the client leaves parse the URL with the same parsers, so a malformed value falls back alike.
  await connection();
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
        <p className="muted">Enrollment keys for new hosts. Changes need the role the server names: editors acknowledge and silence, admins manage keys.</p>
      </div>
      <EnrollmentKeys />
      <p className="muted">
        Everything here, and the rest of the HTTP API: <Link href="/settings/api">HTTP API reference</Link>.
      </p>
    </>
  );
}
