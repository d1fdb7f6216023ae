'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AlertsResponse } from '@/lib/protocol/alerts';
import { fetchJson } from '../fetch-json';

export const ALERTS_REFRESH_MS = 15_000;

export interface AlertsQuery {
  state?: 'active' | 'pending' | 'firing' | 'resolved' | 'all';
  region?: string;
  host?: number;
  rule?: string;
  severity?: 'critical' | 'warning' | 'info';
  /** ISO times: occurrences pending or firing at some time in [from, to). */
  from?: string;
  to?: string;
  limit?: number;
}

/** GET /api/v1/alerts, polled at the alert engine's own interval. */
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
