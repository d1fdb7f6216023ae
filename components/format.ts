export function formatPct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return '—';
  return `${value.toFixed(digits)} %`;
}

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

/** Steal above a few percent means a neighbour is taking the CPU the model needs. */
export type Severity = 'ok' | 'warn' | 'bad';

export function stealSeverity(stealPct: number | null): Severity {
  if (stealPct === null) return 'ok';
  if (stealPct >= 10) return 'bad';
  if (stealPct >= 3) return 'warn';
  return 'ok';
}

export function iowaitSeverity(iowaitPct: number | null): Severity {
  if (iowaitPct === null) return 'ok';
  if (iowaitPct >= 20) return 'bad';
  if (iowaitPct >= 5) return 'warn';
  return 'ok';
}
