'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AlertRule, Channel, DeliveriesResponse, Silence } from '@/lib/protocol/alerts';
import { fetchJson } from '../fetch-json';
import { useAccess } from './use-session-query';

/** GET /api/v1/alerts/rules. */
export function useAlertRulesQuery() {
  return useQuery({
    queryKey: ['alert-rules'],
    queryFn: ({ signal }) => fetchJson<{ rules: AlertRule[] }>('/api/v1/alerts/rules', { signal }),
    refetchInterval: 60_000,
  });
}

/** GET /api/v1/alerts/silences (every state: the page splits them). */
export function useSilencesQuery() {
  return useQuery({
    queryKey: ['alert-silences'],
    queryFn: ({ signal }) => fetchJson<{ silences: Silence[] }>('/api/v1/alerts/silences?state=all', { signal }),
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
}

/** GET /api/v1/alerts/channels: an editor's read (the URLs are the operator's). */
export function useChannelsQuery() {
  return useQuery({
    queryKey: ['alert-channels'],
    queryFn: ({ signal }) => fetchJson<{ channels: Channel[] }>('/api/v1/alerts/channels', { signal }),
    enabled: useAccess().canWrite,
    refetchInterval: 30_000,
    placeholderData: keepPreviousData,
  });
}

/** GET /api/v1/alerts/deliveries: the delivery log, an editor's read. */
export function useDeliveriesQuery(query: { channel?: number; status?: string }) {
  return useQuery({
    queryKey: ['alert-deliveries', query],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ limit: '200' });
      if (query.channel) params.set('channel', String(query.channel));
      if (query.status) params.set('status', query.status);
      return fetchJson<DeliveriesResponse>(`/api/v1/alerts/deliveries?${params}`, { signal });
    },
    enabled: useAccess().canWrite,
    refetchInterval: 15_000,
    placeholderData: keepPreviousData,
  });
}
