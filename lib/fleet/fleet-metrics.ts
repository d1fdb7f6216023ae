import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/open';
import { sharedRead } from '../metrics/shared-read';
import type { FleetSummary } from '../protocol/read-api/fleet';
import { getFleetSummary } from './fleet-summary';

type Host = FleetSummary['hosts'][number];

/** The fleet summary as gauges: per-host state and the count of hosts by status, read at each scrape. */
export function registerFleetMetrics(registry: Registry, readDb: () => Promise<Pick<Database, 'sql'>>, staleAfterMs?: number): void {
  const summary = sharedRead(async () => getFleetSummary(await readDb(), {}, { staleAfterMs }));
  const perHost = (name: string, help: string, value: (host: Host, nowMs: number) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['host', 'host_id', 'region'],
      registers: [registry],
      async collect() {
        const { hosts, generatedAt } = await summary();
        this.reset();
        for (const host of hosts) {
          const v = value(host, Date.parse(generatedAt));
          if (v !== null) this.set({ host: host.hostname, host_id: String(host.id), region: host.region }, v);
        }
      },
    });
  perHost('inferwatch_host_up', 'Whether the host reported within the stale window (1) or not (0).', (host) => (host.status === 'ok' ? 1 : 0));
  perHost('inferwatch_host_cpu_steal_ratio', 'CPU time stolen by the hypervisor in the newest report (0-1).', (host) =>
    host.latest?.stealPct != null ? host.latest.stealPct / 100 : null,
  );
  perHost('inferwatch_host_cpu_iowait_ratio', 'CPU time idle waiting for I/O in the newest report (0-1).', (host) =>
    host.latest?.iowaitPct != null ? host.latest.iowaitPct / 100 : null,
  );
  perHost('inferwatch_host_last_seen_age_seconds', 'Seconds since the host last reported.', (host, nowMs) =>
    host.lastSeenAt ? Math.max(0, (nowMs - Date.parse(host.lastSeenAt)) / 1000) : null,
  );
  new Gauge({
    name: 'inferwatch_hosts',
    help: 'Hosts known to inferwatch, by status.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts: Record<Host['status'], number> = { ok: 0, stale: 0, never_reported: 0 };
      for (const host of (await summary()).hosts) counts[host.status]++;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
}
