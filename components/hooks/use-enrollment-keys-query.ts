'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EnrollmentKeyView } from '@/lib/protocol/admin';
import { fetchJson } from '../fetch-json';
import { useAccess } from './use-session-query';

/** GET /api/v1/admin/enrollment-keys: an admin read, so it waits until the session says admin. */
export function useEnrollmentKeysQuery() {
  return useQuery({
    queryKey: ['enrollment-keys'],
    queryFn: ({ signal }) => fetchJson<{ keys: EnrollmentKeyView[] }>('/api/v1/admin/enrollment-keys', { signal }),
    enabled: useAccess().canAdmin,
    refetchInterval: 60_000,
    placeholderData: keepPreviousData,
  });
}
