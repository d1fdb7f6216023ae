import { DAY_MS, HOUR_MS, MINUTE_MS } from './time';

const UNITS: readonly (readonly [number, string])[] = [[DAY_MS, 'd'], [HOUR_MS, 'h'], [MINUTE_MS, 'min'], [1000, 's']];

/** A configured span, exactly: "0 s", "45 s", "150 s", "5 min", "2 h", "7 d" (the largest unit that divides it). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0 s';
  for (const [size, unit] of UNITS.slice(0, 3)) if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${Math.round(ms / 1000)} s`;
}

/** A measured span in its two largest units, rounded down: "45 s", "4 min 10 s", "2 h 5 min", "3 d 4 h". */
export function formatElapsed(ms: number): string {
  const i = UNITS.findIndex(([size]) => ms >= size);
  if (i < 0) return '0 s';
  const [size, unit] = UNITS[i]!;
  const head = `${Math.floor(ms / size)} ${unit}`;
  const next = UNITS[i + 1];
  const rest = next ? Math.floor((ms % size) / next[0]) : 0;
  return rest > 0 ? `${head} ${rest} ${next![1]}` : head;
}

/** How long ago, in one rounded unit: "12 s ago", "5 min ago", "47 h ago", "3 d ago"; "never" without a time. */
export function formatAge(fromIso: string | null, now: Date): string {
  if (!fromIso) return 'never';
  const seconds = Math.max(0, Math.round((now.getTime() - new Date(fromIso).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/** How long to wait, rounded up so nobody retries a moment too early: "1 s", "40 s", "119 s", "2 min", "15 min". */
export function formatWait(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.ceil(s / 60)} min`;
}
