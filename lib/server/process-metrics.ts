import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { IngestMetrics } from '../ingest/ingest-metrics';
import { processSingleton } from '../process-singleton';

export interface ProcessMetrics {
  registry: Registry;
  ingest: IngestMetrics;
  logWritesDropped: Counter<'stream'>;
  leader: Gauge;
}

/**
 * This process's metrics: Node's own (CPU, memory, event-loop lag, GC pauses), ingest's, its dropped log writes, and
 * whether it leads.
 * One registry per process, because Next's bundle and server.ts each load lib and both must count into the registry
 * GET /metrics renders.
 */
export function processMetrics(): ProcessMetrics {
  return processSingleton('metrics', createProcessMetrics);
}

function createProcessMetrics(): ProcessMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool refuses; each has a twin without the suffix, with the same value.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  const logWritesDropped = new Counter({
    name: 'inferwatch_log_writes_dropped_total',
    help: 'Writes to stdout or stderr that failed (the log reader went away) and were dropped.',
    labelNames: ['stream'],
    registers: [registry],
  });
  for (const stream of ['stdout', 'stderr']) logWritesDropped.inc({ stream }, 0);
  const leader = new Gauge({
    name: 'inferwatch_leader',
    help: '1 while this process leads: it runs the rollups, retention, the findings cycle, alert evaluation and the notification outbox.',
    registers: [registry],
  });
  leader.set(0);
  return { registry, ingest: new IngestMetrics(registry), logWritesDropped, leader };
}
