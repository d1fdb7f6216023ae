'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { SparklineMetric, SparklinesResponse } from '@/lib/protocol/read-api/fleet';
import { fetchJson } from '../fetch-json';

export const SPARKLINES_REFRESH_MS = 60_000;

/** GET /api/v1/fleet/sparklines for the hosts on screen; one point per minute, so polled once a minute. */
export function useFleetSparklinesQuery(query: { ids: number[]; metric: SparklineMetric; latency?: string }) {
  const ids = [...query.ids].sort((a, b) => a - b);
  const key = { ids, metric: query.metric, latency: query.latency ?? null };
  return useQuery({
    queryKey: ['fleet-sparklines', key],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ ids: ids.join(','), metric: query.metric });
      if (query.latency) params.set('latency', query.latency);
      return fetchJson<SparklinesResponse>(`/api/v1/fleet/sparklines?${params}`, { signal });
    },
    enabled: ids.length > 0,
    refetchInterval: SPARKLINES_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
