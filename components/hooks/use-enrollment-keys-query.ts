'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EnrollmentKeyView } from '@/lib/protocol/admin';
import { adminFetchJson, tokenKey, useAdminToken } from '../settings/admin-token-store';

/** GET /api/v1/admin/enrollment-keys: an admin read, so it waits for the token. */
export function useEnrollmentKeysQuery() {
  const token = useAdminToken();
  return useQuery({
    queryKey: ['enrollment-keys', tokenKey(token)],
    queryFn: ({ signal }) => adminFetchJson<{ keys: EnrollmentKeyView[] }>('/api/v1/admin/enrollment-keys', { signal }),
    enabled: token !== null,
    refetchInterval: 60_000,
    placeholderData: keepPreviousData,
  });
}
