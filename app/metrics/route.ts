import { renderAlertMetrics } from '@/lib/alerts/metrics';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { countOpenFindings } from '@/lib/findings/read/host-summaries';
import { getFleetSummary, PROMETHEUS_CONTENT_TYPE, renderFindingMetrics, renderFleetMetrics, renderRollupMetrics } from '@/lib/fleet';
import { requireRole } from '@/lib/auth/principal';
import { readRollupBacklog } from '@/lib/series';
import { processMetrics } from '@/lib/server/process-metrics';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const db = await getReadDb();
    const summary = await getFleetSummary(db, {}, { staleAfterMs: serverEnvironment().staleAfterMs });
    const [backlog, openFindings, alerts] = await Promise.all([readRollupBacklog(db), countOpenFindings(db), renderAlertMetrics(db)]);
    const text =
      renderFleetMetrics(summary) +
      renderRollupMetrics(backlog, new Date(summary.generatedAt)) +
      renderFindingMetrics(openFindings) +
      alerts +
      // This process's own: ingest's counters and times, Node's event loop and GC.
      (await processMetrics().registry.metrics());
    return new Response(text, { headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
