import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { AccountTokens } from '@/components/settings/account-tokens';
import { AuditLog } from '@/components/settings/audit-log';
import { EnrollmentKeys } from '@/components/settings/enrollment-keys';
import { UsersPanel } from '@/components/settings/users-panel';

export const metadata: Metadata = { title: 'Settings' };

export default async function SettingsPage() {
  // Rendered per request; the client leaves parse the URL with the same parsers, so a malformed value falls back alike.
  await connection();
  return (
    <>
      <div className="page-head">
        <h1>Settings</h1>
        <p className="muted">
          Your account and API tokens, enrollment keys for new hosts, and for admins the users and the audit log. Changes need
          the role the server names: editors acknowledge and silence, admins manage keys and users.
        </p>
      </div>
      <AccountTokens />
      <EnrollmentKeys />
      <UsersPanel />
      <AuditLog />
      <p className="muted">
        Everything here, and the rest of the HTTP API: <Link href="/settings/api">HTTP API reference</Link>.
      </p>
    </>
  );
}
