'use client';

import { useQuery } from '@tanstack/react-query';
import type { AdminStatus } from '@/lib/protocol/admin';
import { fetchJson } from '../fetch-json';
import { tokenKey, useAdminToken } from '../settings/admin-token-store';

export type AdminAccess = 'checking' | 'disabled' | 'missing' | 'rejected' | 'accepted' | 'unknown';

/** GET /api/v1/admin/status with the pasted token: whether this tab may write, and if not, why. */
export function useAdminAccess(): { access: AdminAccess; token: string | null; error: Error | null } {
  const token = useAdminToken();
  const status = useQuery({
    queryKey: ['admin-status', tokenKey(token)],
    queryFn: ({ signal }) =>
      fetchJson<AdminStatus>('/api/v1/admin/status', { signal, headers: token ? { Authorization: `Bearer ${token}` } : {} }),
    staleTime: 60_000,
  });
  if (status.isPending) return { access: 'checking', token, error: null };
  if (!status.data) return { access: 'unknown', token, error: status.error };
  const { enabled, tokenAccepted } = status.data;
  const access: AdminAccess = !enabled ? 'disabled' : tokenAccepted === null ? 'missing' : tokenAccepted ? 'accepted' : 'rejected';
  return { access, token, error: null };
}
