'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RegionCompareResponse } from '@/lib/protocol/read-api/regions';
import { fetchJson } from '../fetch-json';
import { regionCompareKey } from '../query-keys';
import { compareRangeOf, type RegionCompareQuery } from '../regions/region-mappers';

export const REGIONS_REFRESH_MS = 30_000;

/** GET /api/v1/regions/compare; a relative range slides with each poll, a pinned one is read once. */
export function useRegionCompareQuery(query: RegionCompareQuery) {
  return useQuery({
    queryKey: regionCompareKey(query),
    queryFn: ({ signal }) => {
      const { from, to } = compareRangeOf(query, Date.now());
      return fetchJson<RegionCompareResponse>(`/api/v1/regions/compare?${new URLSearchParams({ from, to })}`, { signal });
    },
    refetchInterval: query.kind === 'relative' ? REGIONS_REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
}
