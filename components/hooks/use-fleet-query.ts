'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FleetPage } from '@/lib/protocol/read-api/fleet';
import { fetchJson } from '../fetch-json';
import { fleetQueryKey, fleetQueryString, type FleetQuery } from '../fleet/fleet-query';

export const FLEET_REFRESH_MS = 10_000;

/** GET /api/v1/fleet: one page of hosts with the tiles, polled; the previous page stays while the next loads. */
export function useFleetQuery(query: FleetQuery) {
  return useQuery({
    queryKey: fleetQueryKey(query),
    queryFn: ({ signal }) => fetchJson<FleetPage>(`/api/v1/fleet?${fleetQueryString(query)}`, { signal }),
    refetchInterval: FLEET_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
