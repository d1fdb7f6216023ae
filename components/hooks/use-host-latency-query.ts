'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { LatencyResponse } from '@/lib/protocol/read-api/latency';
import { fetchJson } from '../fetch-json';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

export interface HostLatencyQuery {
  hostId: number;
  name: string;
  range: TimeRange;
  points: number;
  shiftMs?: number;
}

/** GET /api/v1/latency?host=… with points: p50…p99.9 per bucket from the host's merged histograms. */
export function useHostLatencyQuery(query: HostLatencyQuery, live: boolean, enabled = true) {
  const { hostId, name, range, points, shiftMs = 0 } = query;
  return useQuery({
    queryKey: ['host-latency', { hostId, name, range, points, shiftMs }],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ host: String(hostId), name, points: String(points), ...rangeParams(range, Date.now(), shiftMs) });
      return fetchJson<LatencyResponse>(`/api/v1/latency?${params}`, { signal });
    },
    refetchInterval: pollingOf(range, live),
    placeholderData: keepPreviousData,
    enabled,
  });
}
