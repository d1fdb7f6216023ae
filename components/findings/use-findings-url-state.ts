'use client';

import { useQueryStates } from 'nuqs';
import { toFindingsFilter } from './findings-filter';
import { findingsSearchParams } from './search-params';

/** The findings page's URL state, the filter it makes, and a setter (replace: filters are not pages). */
export function useFindingsUrlState() {
  const [state, setState] = useQueryStates(findingsSearchParams, { history: 'replace', clearOnDefault: true });
  return { state, setState, filter: toFindingsFilter(state) };
}
