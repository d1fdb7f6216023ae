'use client';

import { useIsClient } from '../hooks/use-is-client';
import { formatLocalTime, formatUtcTime } from './format-time';

/** A time in the viewer's zone, UTC on hover; UTC until hydrated, since the server does not know the zone. */
export function LocalTime({ iso, withDate = true }: { iso: string; withDate?: boolean }) {
  const isClient = useIsClient();
  const utc = formatUtcTime(iso);
  return (
    <time dateTime={iso} title={utc}>
      {isClient ? formatLocalTime(iso, { withDate }) : utc}
    </time>
  );
}
