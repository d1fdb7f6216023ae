export function formatPct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return '—';
  return `${value.toFixed(digits)} %`;
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

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function formatQueue(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value >= 10 ? value.toFixed(0) : value.toFixed(2);
}

export function formatCount(value: number): string {
  return new Intl.NumberFormat('en').format(value);
}

/** Average requests in flight per disk: past a few, requests wait behind each other. */
export function queueSeverity(depth: number | null): Severity {
  if (depth === null) return 'ok';
  if (depth >= 8) return 'bad';
  if (depth >= 2) return 'warn';
  return 'ok';
}
