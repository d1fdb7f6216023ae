'use client';

import { useQuery } from '@tanstack/react-query';
import type { ApiTokenView } from '@/lib/protocol/auth';
import { fetchJson } from '../fetch-json';
import { useSessionQuery } from './use-session-query';

export const API_TOKENS_QUERY_KEY = ['api-tokens'] as const;

/** GET /api/v1/auth/tokens: the signed-in user's own tokens, so it waits until the session is a user's. */
export function useApiTokensQuery() {
  const session = useSessionQuery();
  return useQuery({
    queryKey: API_TOKENS_QUERY_KEY,
    queryFn: ({ signal }) => fetchJson<{ tokens: ApiTokenView[] }>('/api/v1/auth/tokens', { signal }),
    enabled: session.data?.principal?.kind === 'user',
  });
}
