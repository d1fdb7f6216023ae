'use client';

import { useQuery } from '@tanstack/react-query';
import type { ThresholdOverride } from '@/lib/protocol/findings';
import { fetchJson } from '../fetch-json';

export const thresholdOverridesKey = ['threshold-overrides'] as const;

/** GET /api/v1/findings/thresholds: every override, of every rule. */
export function useThresholdOverridesQuery(options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: thresholdOverridesKey,
    queryFn: ({ signal }) => fetchJson<{ overrides: ThresholdOverride[] }>('/api/v1/findings/thresholds', { signal }),
    refetchInterval: 60_000,
    enabled: options.enabled ?? true,
  });
}
