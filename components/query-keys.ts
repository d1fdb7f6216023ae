import type { RegionCompareQuery } from './regions/region-mappers';

/** React Query keys shared by the hooks and the server pages that prefetch for them (not a "use client" module). */
export interface FindingsQuery {
  rule?: string;
  region?: string;
  host?: number;
  /** `key:value,key:value`, as GET /api/v1/findings parses it. */
  labels?: string;
  severity?: 'critical' | 'warning' | 'info';
  state?: 'pending' | 'open' | 'resolved' | 'all';
  limit?: number;
}

export const findingsKey = (query: FindingsQuery) => ['findings', query] as const;
export const residencyPoliciesKey = () => ['residency-policies'] as const;
export const regionCompareKey = (query: RegionCompareQuery) => ['region-compare', query] as const;

/** The open residency violations the regions page counts. */
export const RESIDENCY_FINDINGS: FindingsQuery = { rule: 'region.residency', state: 'open' };
