import { collectDefaultMetrics, Registry } from 'prom-client';
import { IngestMetrics } from '../ingest/ingest-metrics';

export interface ProcessMetrics {
  registry: Registry;
  ingest: IngestMetrics;
}

const holder = globalThis as typeof globalThis & { __inferwatchMetrics?: ProcessMetrics };

/**
 * This process's metrics: Node's own (CPU, memory, event-loop lag, GC pauses) and ingest's. One registry per process,
 * because Next's bundle and server.ts each load lib and both must count into the registry GET /metrics renders.
 */
export function processMetrics(): ProcessMetrics {
  if (!holder.__inferwatchMetrics) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters, which promtool refuses; each has a twin without the suffix, with the same value.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      registry.removeSingleMetric(name);
    }
    holder.__inferwatchMetrics = { registry, ingest: new IngestMetrics(registry) };
  }
  return holder.__inferwatchMetrics;
}
