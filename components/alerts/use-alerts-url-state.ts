'use client';

import { useQueryStates } from 'nuqs';
import { alertsSearchParams } from './search-params';

export function useAlertsUrlState() {
  const [state, setState] = useQueryStates(alertsSearchParams, { history: 'replace', clearOnDefault: true });
  return { state, setState };
}
