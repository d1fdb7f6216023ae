'use client';

import Link from 'next/link';
import { useDemoFleetQuery } from '../hooks/use-demo-fleet-query';
import { useAccess } from '../hooks/use-session-query';
import { DEMO_FLEET_HREF, demoBannerText } from './demo-banner-text';

/** Says that the demo fleet's hosts are simulated, on every page, for as long as any is listed (docs/demo.md). */
export function DemoBanner() {
  const { role } = useAccess();
  const query = useDemoFleetQuery(role !== null);
  const text = query.data ? demoBannerText(query.data) : null;
  if (!text) return null;
  return (
    <div className="banner banner-info" role="note" aria-label="Demo fleet" data-testid="demo-banner">
      <strong>{text.lead}</strong> {text.detail}{' '}
      <Link href={DEMO_FLEET_HREF}>Show only them</Link> (more in <code>docs/demo.md</code>)
    </div>
  );
}
