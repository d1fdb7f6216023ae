'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HostAnnotationsResponse } from '@/lib/protocol/read-api/annotations';
import { fetchJson } from '../fetch-json';
import { rangeParams, type TimeRange } from '../host/time-range';
import { pollingOf } from './range-polling';

/** GET /api/v1/hosts/:id/annotations: the inventory changes, findings and alerts every chart marks. */
export function useHostAnnotationsQuery(hostId: number, range: TimeRange, live: boolean) {
  return useQuery({
    queryKey: ['host-annotations', { hostId, range }],
    queryFn: ({ signal }) =>
      fetchJson<HostAnnotationsResponse>(`/api/v1/hosts/${hostId}/annotations?${new URLSearchParams(rangeParams(range, Date.now()))}`, { signal }),
    refetchInterval: pollingOf(range, live),
    placeholderData: keepPreviousData,
  });
}
