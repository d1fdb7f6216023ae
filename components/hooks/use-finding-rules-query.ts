'use client';

import { useQuery } from '@tanstack/react-query';
import type { FindingRuleDescription, FindingRuleDoc } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';
import { findingRulesKey } from '../findings/findings-filter';

/** GET /api/v1/findings/rules: the rule reference; it changes only with a new release. */
export function useFindingRulesQuery() {
  return useQuery({
    queryKey: findingRulesKey,
    queryFn: ({ signal }) => fetchJson<{ rules: FindingRuleDescription[] }>('/api/v1/findings/rules', { signal }),
    staleTime: Infinity,
  });
}

/** GET /api/v1/findings/rules/:id: one rule's doc page. */
export function useFindingRuleDocQuery(ruleId: string, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ['finding-rule-doc', ruleId],
    queryFn: ({ signal }) => fetchJson<FindingRuleDoc>(`/api/v1/findings/rules/${encodeURIComponent(ruleId)}`, { signal }),
    staleTime: Infinity,
    enabled: options.enabled ?? true,
  });
}
