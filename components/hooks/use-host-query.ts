'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HostDetail } from '@/lib/protocol/read-api/host';
import { fetchJson } from '../fetch-json';
import { hostQueryKey } from '../host/host-queries';

export const HOST_REFRESH_MS = 15_000;

/** GET /api/v1/hosts/:id: the host's fleet row and newest inventory, polled. */
export function useHostQuery(hostId: number) {
  return useQuery({
    queryKey: hostQueryKey(hostId),
    queryFn: ({ signal }) => fetchJson<HostDetail>(`/api/v1/hosts/${hostId}`, { signal }),
    refetchInterval: HOST_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
