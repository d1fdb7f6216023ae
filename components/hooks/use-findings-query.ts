'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FindingsQueryParams, FindingsResponse } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { findingsKey } from '../query-keys';

export const FINDINGS_REFRESH_MS = 30_000;

export function findingsQueryString(query: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, String(value));
  return params.toString();
}

/** GET /api/v1/findings, polled. */
export function useFindingsQuery(query: FindingsQueryParams, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: findingsKey(query),
    queryFn: ({ signal }) => fetchJson<FindingsResponse>(`/api/v1/findings?${findingsQueryString(query)}`, { signal }),
    refetchInterval: FINDINGS_REFRESH_MS,
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}
