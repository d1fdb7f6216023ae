'use client';

import { useQuery } from '@tanstack/react-query';
import type { SessionInfo } from '@/lib/protocol/auth';
import { hasRole, type Role } from '@/lib/protocol/roles';
import { fetchJson } from '../fetch-json';

export const SESSION_QUERY_KEY = ['session'] as const;

/** GET /api/v1/auth/session: who this browser acts as. */
export function useSessionQuery() {
  return useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: ({ signal }) => fetchJson<SessionInfo>('/api/v1/auth/session', { signal }),
    staleTime: 60_000,
  });
}

export interface Access {
  /** Still asking the server. */
  pending: boolean;
  role: Role | null;
  /** Editors and admins: acknowledge, silence, thresholds, alert rules and channels. */
  canWrite: boolean;
  /** Admins: users, enrollment keys, residency policies. */
  canAdmin: boolean;
}

/** What the signed-in principal may do, for hiding what the server would refuse anyway. */
export function useAccess(): Access {
  const session = useSessionQuery();
  const role = session.data?.principal?.role ?? null;
  return {
    pending: session.isPending,
    role,
    canWrite: role !== null && hasRole(role, 'editor'),
    canAdmin: role === 'admin',
  };
}
