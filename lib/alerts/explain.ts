import type { Sql } from '../db/sql';
import { explainLatency } from '../findings/latency/read/explain-latency';
import { readWorstLatencyHost, type LatencyAlertContext } from './read/worst-latency-host';

/** What can say why a latency alert fired ("steal 14 % on vCPUs 2–3"); null when it cannot tell. */
export interface LatencyExplainer {
  explain(context: LatencyAlertContext): Promise<string | null>;
}

/**
 * A region's latency alert explained by a per-host explainer (lib/findings' latency explanation) run on the host
 * that served the most slow requests.
 */
export function hostLatencyExplainer(
  sql: Sql,
  explainHost: (input: { hostId: number; name: string; from: Date; to: Date }) => Promise<string | null>,
): LatencyExplainer {
  return {
    async explain(context) {
      const hostId = await readWorstLatencyHost(sql, context);
      return hostId === null ? null : explainHost({ hostId, name: context.service, from: context.from, to: context.to });
    },
  };
}

/** lib/findings' latency explanation: its likely causes (at most two) on the worst host, or null if it found none. */
export function findingsLatencyExplainer(sql: Sql): LatencyExplainer {
  return hostLatencyExplainer(sql, async ({ hostId, name, from, to }) => {
    const explanation = await explainLatency(sql, { hostId, name, from, to, now: to });
    if (explanation.causes.length === 0) return null;
    return `${explanation.causes.slice(0, 2).map((c) => c.summary).join('; ')} on ${explanation.hostname}`;
  });
}
