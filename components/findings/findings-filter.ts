import { labelsSchema } from '@/lib/protocol/read-api/params';
import type { Severity } from '@/lib/protocol/findings';
import type { FindingsUrlState } from './search-params';

/** What both the per-rule summary and each rule's list are filtered by; empty filters left out so keys stay stable. */
export interface FindingsFilter {
  state: FindingsUrlState['state'];
  severity?: Severity;
  region?: string;
  labels?: string;
  host?: number;
}

export function labelsFilterError(text: string): string | null {
  if (text.trim() === '') return null;
  return labelsSchema.safeParse(text).success ? null : 'Write labels as key:value, several separated by commas.';
}

export function toFindingsFilter(state: FindingsUrlState): FindingsFilter {
  const filter: FindingsFilter = { state: state.state };
  if (state.severity) filter.severity = state.severity;
  if (state.region.trim()) filter.region = state.region.trim();
  if (state.labels.trim() && labelsFilterError(state.labels) === null) filter.labels = state.labels.trim();
  if (state.host !== null && state.host > 0) filter.host = state.host;
  return filter;
}

export const findingsSummaryKey = (filter: FindingsFilter) => ['findings-summary', filter] as const;

/** Whether the URL narrows the findings beyond the default (open findings, everywhere). */
export function isFiltered(filter: FindingsFilter): boolean {
  return filter.state !== 'open' || Boolean(filter.severity || filter.region || filter.labels || filter.host);
}

export const findingRulesKey = ['finding-rules'] as const;
