import type { FindingEvidence } from '../protocol/findings';

/** 12.345 → "12.3"; integers stay integers. */
export function fmt(value: number, digits = 1): string {
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(digits);
}

export function fmtPct(value: number): string {
  return `${fmt(value)} %`;
}

/** [0, 1, 2, 5, 7, 8] → "0–2, 5, 7–8": CPU numbers as a person (and taskset) reads them. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]));
    i = j;
  }
  return parts.join(', ');
}

/** The same list in the syntax `--cpuset-cpus` and `taskset -c` take: "0-2,5". */
export function cpusetArgument(cpus: readonly number[]): string {
  return formatCpuList(cpus).replaceAll('–', '-').replaceAll(', ', ',');
}

/** A facts window's bounds, as a finding's evidence names them. */
export function windowOf(window: { fromMs: number; toMs: number }): NonNullable<FindingEvidence['window']> {
  return { from: new Date(window.fromMs).toISOString(), to: new Date(window.toMs).toISOString() };
}

export function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 1 ? `${fmt(m)} min` : `${fmt(ms / 1000)} s`;
}

export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
