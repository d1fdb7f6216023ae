'use client';

import { useQuery } from '@tanstack/react-query';
import type { UserView } from '@/lib/protocol/auth';
import { fetchJson } from '../fetch-json';
import { useAccess } from './use-session-query';

export const USERS_QUERY_KEY = ['users'] as const;

/** GET /api/v1/admin/users: an admin read, so it waits until the session says admin. */
export function useUsersQuery() {
  return useQuery({
    queryKey: USERS_QUERY_KEY,
    queryFn: ({ signal }) => fetchJson<{ users: UserView[] }>('/api/v1/admin/users', { signal }),
    enabled: useAccess().canAdmin,
  });
}
