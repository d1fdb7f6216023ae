import { Registry } from 'prom-client';
import { registerAlertMetrics } from '../alerts/metrics';
import { getReadDb } from '../db';
import { registerFindingMetrics } from '../findings/read/finding-metrics';
import { registerFleetMetrics } from '../fleet/fleet-metrics';
import { processSingleton } from '../process-singleton';
import { registerRollupMetrics } from '../series/rollup-metrics';
import { serverEnvironment } from './environment';
import { processMetrics } from './process-metrics';

/**
 * The one registry GET /metrics serves: the fleet, rollups, findings and alerts, read from the database at each
 * scrape (so every replica shows the same), then this process's own (ingest, Node, leadership).
 */
export function servedMetrics(): Registry {
  return processSingleton('served-metrics', () => {
    const database = new Registry();
    registerFleetMetrics(database, getReadDb, serverEnvironment().staleAfterMs);
    for (const register of [registerRollupMetrics, registerFindingMetrics, registerAlertMetrics]) register(database, getReadDb);
    return Registry.merge([database, processMetrics().registry]);
  });
}
