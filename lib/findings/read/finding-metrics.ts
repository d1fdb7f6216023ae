import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../../db/open';
import { countOpenFindings } from './host-summaries';

/** Open findings by rule, severity and region: alert on `inferwatch_findings_open{severity="critical"} > 0`. */
export function registerFindingMetrics(registry: Registry, readDb: () => Promise<Pick<Database, 'sql'>>): void {
  new Gauge({
    name: 'inferwatch_findings_open',
    help: 'Open findings (misconfigurations and conditions), by rule, severity and region.',
    labelNames: ['rule', 'severity', 'region'],
    registers: [registry],
    async collect() {
      const counts = await countOpenFindings(await readDb());
      this.reset();
      for (const c of counts) this.set({ rule: c.ruleId, severity: c.severity, region: c.region }, c.count);
    },
  });
}
