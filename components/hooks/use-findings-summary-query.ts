'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FindingsSummaryResponse } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { findingsSummaryKey, type FindingsFilter } from '../findings/findings-filter';
import { FINDINGS_REFRESH_MS, findingsQueryString } from './use-findings-query';

/** GET /api/v1/findings/summary: the matching findings counted per rule, polled. */
export function useFindingsSummaryQuery(filter: FindingsFilter) {
  return useQuery({
    queryKey: findingsSummaryKey(filter),
    queryFn: ({ signal }) => fetchJson<FindingsSummaryResponse>(`/api/v1/findings/summary?${findingsQueryString(filter)}`, { signal }),
    refetchInterval: FINDINGS_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
