'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FixedFindingsResponse } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { FINDINGS_REFRESH_MS } from './use-findings-query';

export interface FixedFindingsFilter {
  /** How far back, in days, from now. */
  days: number;
  region?: string;
  labels?: string;
}

export const fixedFindingsKey = (filter: FixedFindingsFilter) => ['findings-fixed', filter] as const;

/** GET /api/v1/findings/fixed: what was fixed in the last `days` days and what each fix bought, polled. */
export function useFixedFindingsQuery(filter: FixedFindingsFilter) {
  return useQuery({
    queryKey: fixedFindingsKey(filter),
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ from: new Date(Date.now() - filter.days * 86_400_000).toISOString() });
      if (filter.region) params.set('region', filter.region);
      if (filter.labels) params.set('labels', filter.labels);
      return fetchJson<FixedFindingsResponse>(`/api/v1/findings/fixed?${params}`, { signal });
    },
    refetchInterval: FINDINGS_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
