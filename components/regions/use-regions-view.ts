'use client';

import { useQueryStates } from 'nuqs';
import { useRegionCompareQuery } from '../hooks/use-region-compare-query';
import { chosenRegions, pickLatencySeries, pickRegions, toRegionCompareQuery } from './region-mappers';
import { regionSearchParams } from './search-params';

/** URL state, the comparison it asks for, and the regions and latency series it settles on. */
export function useRegionsView() {
  const [state, setState] = useQueryStates(regionSearchParams, { history: 'replace', clearOnDefault: true });
  const query = toRegionCompareQuery(state);
  const compare = useRegionCompareQuery(query);
  const picked = compare.data ? pickRegions(compare.data.regions, state.regions) : state.regions;
  const regions = compare.data ? chosenRegions(compare.data, picked) : [];
  const series = pickLatencySeries(regions, state.latency);
  return { state, setState, query, compare, picked, regions, series };
}

export const SERIES_COLORS = ['var(--series-1)', 'var(--series-2)', 'var(--series-3)', 'var(--series-4)', 'var(--series-5)', 'var(--series-6)'];
