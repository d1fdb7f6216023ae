import type { ColourLevels } from '@/lib/protocol/read-api/fleet';

export function formatPct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return '—';
  return `${value.toFixed(digits)} %`;
}

export type Severity = 'ok' | 'warn' | 'bad';

/**
 * A value's colour from the levels the server resolved from the findings rule that judges it (with overrides):
 * past `warn` it warns and past `crit` it is critical, strictly above, as the rules raise their findings.
 */
export function levelSeverity(value: number | null | undefined, levels: ColourLevels): Severity {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'ok';
  if (levels.crit !== null && value > levels.crit) return 'bad';
  if (levels.warn !== null && value > levels.warn) return 'warn';
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
