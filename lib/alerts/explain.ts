import type { Sql } from '../db/sql';
import { explainLatency } from '../findings/latency/explain-latency';
import { keyOf } from '../sketch';

export interface LatencyAlertContext {
  region: string;
  service: string;
  /** Requests slower than this are the ones the alert is about. */
  slowMs: number;
  from: Date;
  to: Date;
}

/** What can say why a latency alert fired ("steal 14 % on vCPUs 2–3"); null when it cannot tell. */
export interface LatencyExplainer {
  explain(context: LatencyAlertContext): Promise<string | null>;
}

/** The host of the region with the most slow requests of the service in the window. */
export async function worstLatencyHost(sql: Sql, context: LatencyAlertContext): Promise<number | null> {
  const [row] = await sql.query<{ host_id: number }>(
    `SELECT x.host_id FROM latency_samples x JOIN hosts h ON h.id = x.host_id
      WHERE h.region = $1 AND x.name = $2 AND x.ts > $3 AND x.ts <= $4
      GROUP BY x.host_id
      ORDER BY sum((SELECT coalesce(sum(c), 0) FROM unnest(x.keys, x.counts) u(k, c) WHERE k > $5)) DESC, x.host_id
      LIMIT 1`,
    [context.region, context.service, context.from, context.to, keyOf(context.slowMs)],
  );
  return row ? row.host_id : null;
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
      const hostId = await worstLatencyHost(sql, context);
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
