'use client';

import { useQuery } from '@tanstack/react-query';
import type { ResidencyPolicyView } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { residencyPoliciesKey } from '../query-keys';

/** GET /api/v1/findings/residency-policies. */
export function useResidencyPoliciesQuery() {
  return useQuery({
    queryKey: residencyPoliciesKey(),
    queryFn: ({ signal }) => fetchJson<{ policies: ResidencyPolicyView[] }>('/api/v1/findings/residency-policies', { signal }),
    refetchInterval: 60_000,
  });
}
