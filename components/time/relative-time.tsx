'use client';

import { formatAge } from '@/lib/protocol/duration';
import { useIsClient } from '../hooks/use-is-client';
import { formatLocalTime, formatUtcTime } from './format-time';

/** "12 s ago" against the server's clock (`now`), with the time in the viewer's zone and in UTC on hover. */
export function RelativeTime({ iso, now }: { iso: string | null; now: Date }) {
  const isClient = useIsClient();
  if (!iso) return <span className="muted">never</span>;
  const utc = formatUtcTime(iso);
  return (
    <time dateTime={iso} title={isClient ? `${formatLocalTime(iso)} · ${utc}` : utc}>
      {formatAge(iso, now)}
    </time>
  );
}
