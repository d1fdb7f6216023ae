'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HostLatencySeriesResponse } from '@/lib/protocol/read-api/host';
import { fetchJson } from '../fetch-json';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

/** GET /api/v1/hosts/:id/latency-series: the latency series the host reported in the range, busiest first. */
export function useHostLatencySeriesQuery(hostId: number, range: TimeRange, live: boolean) {
  return useQuery({
    queryKey: ['host-latency-series', { hostId, range }],
    queryFn: ({ signal }) =>
      fetchJson<HostLatencySeriesResponse>(`/api/v1/hosts/${hostId}/latency-series?${new URLSearchParams(rangeParams(range, Date.now()))}`, { signal }),
    refetchInterval: pollingOf(range, live) && 60_000,
    placeholderData: keepPreviousData,
  });
}
