'use client';

import { useQueryStates } from 'nuqs';
import { toFleetQuery } from './fleet-query';
import { fleetSearchParams } from './search-params';

/** The fleet page's URL state, the query it makes, and a setter (replace, not push: filters are not pages). */
export function useFleetUrlState() {
  const [state, setState] = useQueryStates(fleetSearchParams, { history: 'replace', clearOnDefault: true });
  return { state, setState, query: toFleetQuery(state) };
}
