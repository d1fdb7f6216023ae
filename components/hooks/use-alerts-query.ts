'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AlertsResponse } from '@/lib/protocol/alerts';
import { fetchJson } from '../fetch-json';

export const ALERTS_REFRESH_MS = 15_000;

export interface AlertsQuery {
  state?: 'active' | 'pending' | 'firing' | 'resolved' | 'all';
  region?: string;
  host?: number;
}

/** GET /api/v1/alerts, polled. */
export function useAlertsQuery(query: AlertsQuery) {
  return useQuery({
    queryKey: ['alerts', query],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
      return fetchJson<AlertsResponse>(`/api/v1/alerts?${params}`, { signal });
    },
    refetchInterval: ALERTS_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}
