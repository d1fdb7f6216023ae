'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { LatencyExplanation } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

/** GET /api/v1/hosts/:id/latency-explained: did p99 of `name` regress over the range against the day before, and why. */
export function useLatencyExplainedQuery(hostId: number, name: string | null, range: TimeRange, live: boolean) {
  return useQuery({
    queryKey: ['latency-explained', { hostId, name, range }],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ name: name!, ...rangeParams(range, Date.now()) });
      return fetchJson<LatencyExplanation>(`/api/v1/hosts/${hostId}/latency-explained?${params}`, { signal });
    },
    enabled: name !== null,
    refetchInterval: pollingOf(range, live) && 60_000,
    placeholderData: keepPreviousData,
  });
}
