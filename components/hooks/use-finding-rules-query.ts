'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { FindingRuleDescription, FindingRuleDoc, FindingsTopic, FindingsTopicDoc } from '@/lib/protocol/findings';
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

/** The registered rules' ids, which links between docs may point to; empty until the rule reference is in. */
export function useFindingRuleIds(): ReadonlySet<string> {
  const { data } = useFindingRulesQuery();
  return useMemo(() => new Set(data?.rules.map((rule) => rule.id)), [data]);
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

/** GET /api/v1/findings/docs/:topic: a doc that explains a method rather than a rule. */
export function useFindingsTopicDocQuery(topic: FindingsTopic) {
  return useQuery({
    queryKey: ['findings-topic-doc', topic],
    queryFn: ({ signal }) => fetchJson<FindingsTopicDoc>(`/api/v1/findings/docs/${encodeURIComponent(topic)}`, { signal }),
    staleTime: Infinity,
  });
}
