'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FindingsResponse } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';

export interface FindingsQuery {
  rule?: string;
  region?: string;
  host?: number;
  severity?: 'critical' | 'warning' | 'info';
  state?: 'pending' | 'open' | 'resolved' | 'all';
  limit?: number;
}

/** GET /api/v1/findings, polled. */
export function useFindingsQuery(query: FindingsQuery) {
  return useQuery({
    queryKey: ['findings', query],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
      return fetchJson<FindingsResponse>(`/api/v1/findings?${params}`, { signal });
    },
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
}
