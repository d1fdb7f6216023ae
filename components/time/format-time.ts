/** `2026-12-01 14:05:09 UTC`: the unambiguous form shown on hover and before the viewer's zone is known. */
export function formatUtcTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The time in the viewer's zone (or `timeZone`), with the zone's short name. */
export function formatLocalTime(iso: string, options: { withDate?: boolean; timeZone?: string } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, {
    ...(options.withDate === false ? {} : { year: 'numeric', month: 'short', day: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
    timeZone: options.timeZone,
  }).format(date);
}
