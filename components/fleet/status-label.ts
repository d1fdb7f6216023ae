import type { HostStatus } from '@/lib/protocol/read-api/fleet';

export const STATUS_LABEL: Record<HostStatus, string> = { ok: 'reporting', stale: 'stale', never_reported: 'no data yet' };
