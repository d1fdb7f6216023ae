'use client';

import { useQuery } from '@tanstack/react-query';
import type { DemoFleetResponse } from '@/lib/protocol/read-api/fleet';
import { fetchJson } from '../fetch-json';

export const DEMO_FLEET_REFRESH_MS = 60_000;

/** GET /api/v1/fleet/demo, once signed in (a signed-out page would only earn a 401). */
export function useDemoFleetQuery(enabled: boolean) {
  return useQuery({
    queryKey: ['demo-fleet'],
    queryFn: ({ signal }) => fetchJson<DemoFleetResponse>('/api/v1/fleet/demo', { signal }),
    enabled,
    refetchInterval: DEMO_FLEET_REFRESH_MS,
    staleTime: 30_000,
  });
}
