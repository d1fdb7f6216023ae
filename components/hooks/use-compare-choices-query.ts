'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CompareChoices } from '@/lib/protocol/read-api/compare';
import { fetchJson } from '../fetch-json';
import { compareChoicesQueryKey } from '../compare/compare-mappers';

/** GET /api/v1/compare/choices: regions, latency series and the hosts a search matches. */
export function useCompareChoicesQuery(q: string) {
  const query = q.trim();
  return useQuery({
    queryKey: compareChoicesQueryKey(query),
    queryFn: ({ signal }) => fetchJson<CompareChoices>(`/api/v1/compare/choices?${new URLSearchParams(query ? { q: query } : {})}`, { signal }),
    refetchInterval: 60_000,
    placeholderData: keepPreviousData,
  });
}
