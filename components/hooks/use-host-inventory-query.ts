'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HostInventoryResponse } from '@/lib/protocol/read-api/inventory';
import { fetchJson } from '../fetch-json';
import { hostInventoryQueryKey } from '../host/host-queries';

/** GET /api/v1/hosts/:id/inventory: the newest inventory and the last 90 days of its changes. */
export function useHostInventoryQuery(hostId: number) {
  return useQuery({
    queryKey: hostInventoryQueryKey(hostId),
    queryFn: ({ signal }) => fetchJson<HostInventoryResponse>(`/api/v1/hosts/${hostId}/inventory`, { signal }),
    refetchInterval: 60_000,
    placeholderData: keepPreviousData,
  });
}
