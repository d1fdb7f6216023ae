'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FleetSummary } from '@/lib/protocol/read-api/fleet';
import { fetchJson } from '../fetch-json';

export const FLEET_REFRESH_MS = 10_000;

export function useFleetQuery(region?: string) {
  return useQuery({
    queryKey: ['fleet', { region: region ?? null }],
    queryFn: () => fetchJson<FleetSummary>(region ? `/api/v1/fleet?region=${encodeURIComponent(region)}` : '/api/v1/fleet'),
    refetchInterval: FLEET_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
