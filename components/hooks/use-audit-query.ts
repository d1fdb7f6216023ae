'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AuditEntryView } from '@/lib/protocol/auth';
import { fetchJson } from '../fetch-json';
import { useAccess } from './use-session-query';

export const AUDIT_PAGE_SIZE = 200;

/** GET /api/v1/admin/audit: one page, newest first, of the entries older than `before` (an entry id), or the newest. */
export function useAuditQuery(before: number | null) {
  return useQuery({
    queryKey: ['audit', { before }],
    queryFn: ({ signal }) =>
      fetchJson<{ entries: AuditEntryView[] }>(`/api/v1/admin/audit?limit=${AUDIT_PAGE_SIZE}${before === null ? '' : `&before=${before}`}`, { signal }),
    enabled: useAccess().canAdmin,
    placeholderData: keepPreviousData,
  });
}
