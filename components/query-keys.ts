import type { FindingsQueryParams } from '@/lib/protocol/findings';
import type { RegionCompareQuery } from './regions/region-mappers';

/** React Query keys shared by the hooks and the server pages that prefetch for them (not a "use client" module). */
export const findingsKey = (query: FindingsQueryParams) => ['findings', query] as const;
export const residencyPoliciesKey = () => ['residency-policies'] as const;
export const regionCompareKey = (query: RegionCompareQuery) => ['region-compare', query] as const;

/** The open residency violations the regions page counts. */
export const RESIDENCY_FINDINGS: FindingsQueryParams = { rule: 'region.residency', state: 'open' };

/** GET /api/v1/slo. */
export const sloKey = () => ['slo'] as const;
