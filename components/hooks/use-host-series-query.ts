'use client';

import { keepPreviousData, useQueries } from '@tanstack/react-query';
import type { HostSeriesResponse, SeriesMetric } from '@/lib/protocol/read-api/series';
import { fetchJson } from '../fetch-json';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

export interface HostSeriesQuery {
  hostId: number;
  metric: SeriesMetric;
  range: TimeRange;
  maxPoints: number;
  /** Read the range this much earlier (the "a week earlier" overlay). */
  shiftMs?: number;
}

export function hostSeriesQueryOptions(query: HostSeriesQuery, live: boolean) {
  const { hostId, metric, range, maxPoints, shiftMs = 0 } = query;
  return {
    queryKey: ['host-series', { hostId, metric, range, maxPoints, shiftMs }] as const,
    queryFn: ({ signal }: { signal: AbortSignal }) => {
      const params = new URLSearchParams({ metric, maxPoints: String(maxPoints), ...rangeParams(range, Date.now(), shiftMs) });
      return fetchJson<HostSeriesResponse>(`/api/v1/hosts/${hostId}/series?${params}`, { signal });
    },
    refetchInterval: pollingOf(range, live),
    placeholderData: keepPreviousData,
  };
}

/** GET /api/v1/hosts/:id/series for each metric of a chart; a live relative range slides with each poll. */
export function useHostSeriesQueries(queries: readonly HostSeriesQuery[], live: boolean) {
  return useQueries({ queries: queries.map((query) => hostSeriesQueryOptions(query, live)) });
}
