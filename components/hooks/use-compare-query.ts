'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CompareResponse } from '@/lib/protocol/read-api/compare';
import { fetchJson } from '../fetch-json';
import type { CompareRequest } from '../compare/compare-mappers';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

/** GET /api/v1/compare: one metric of many hosts, polled while a relative range is live. */
export function useCompareQuery(request: CompareRequest | null, range: TimeRange, live: boolean, maxPoints: number) {
  return useQuery({
    queryKey: ['compare', { request, range, maxPoints }],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ ...request!, maxPoints: String(maxPoints), ...rangeParams(range, Date.now()) });
      return fetchJson<CompareResponse>(`/api/v1/compare?${params}`, { signal });
    },
    enabled: request !== null,
    refetchInterval: pollingOf(range, live),
    placeholderData: keepPreviousData,
  });
}
