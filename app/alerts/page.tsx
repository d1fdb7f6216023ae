import type { Metadata } from 'next';
import { connection } from 'next/server';
import { AlertsTabs } from '@/components/alerts/alerts-tabs';
import { AccessNote } from '@/components/session/access-note';

export const metadata: Metadata = { title: 'Alerts' };

export default async function AlertsPage() {
  // Rendered per request; the client leaves parse the URL with the same parsers, so a malformed value falls back alike.
  await connection();
  return (
    <>
      <div className="page-head">
        <h1>Alerts</h1>
        <p className="muted">Rules over the series and findings, firing → resolved with their history; where notifications go and whether they arrived.</p>
      </div>
      <AccessNote needs="acknowledging alerts, silences, rules and channels" />
      <AlertsTabs />
    </>
  );
}
