import { parseAsInteger, parseAsString, parseAsStringLiteral } from 'nuqs/server';
import { DELIVERY_STATUSES } from '@/lib/protocol/alerts';
import { SEVERITIES } from '@/lib/protocol/findings';

export const ALERT_TABS = ['alerts', 'rules', 'silences', 'channels', 'deliveries'] as const;
export type AlertTab = (typeof ALERT_TABS)[number];
export const ALERT_SECTIONS = ['all', 'firing', 'pending', 'resolved'] as const;
export const HISTORY_RANGES = ['24h', '7d', '30d'] as const;
export const HISTORY_MS: Record<(typeof HISTORY_RANGES)[number], number> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

/** The alerts page's URL state: the tab, the alert filters, the history range and the delivery log's filters. */
export const alertsSearchParams = {
  tab: parseAsStringLiteral(ALERT_TABS).withDefault('alerts'),
  show: parseAsStringLiteral(ALERT_SECTIONS).withDefault('all'),
  severity: parseAsStringLiteral(SEVERITIES),
  rule: parseAsString,
  region: parseAsString.withDefault(''),
  history: parseAsStringLiteral(HISTORY_RANGES).withDefault('24h'),
  channel: parseAsInteger,
  status: parseAsStringLiteral(DELIVERY_STATUSES),
};
