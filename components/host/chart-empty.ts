import type { HostSeriesResponse, SeriesMetric } from '@/lib/protocol/read-api/series';

/**
 * The metric whose read says whether the host reported at all in a range: host_samples holds a row for every
 * report, with or without CPU times, so its series has a point for each bucket with a report (a null value if the
 * report had no CPU section) and no series at all when none came. The CPU chart reads it anyway.
 */
export const REPORTS_METRIC: SeriesMetric = 'cpu_user';

/** Why a host chart has nothing to draw. */
export type ChartEmptiness =
  /** The reports read has not answered for this range yet. */
  | { kind: 'checking' }
  /** No data in this range: the host sent no report in it. */
  | { kind: 'no-reports'; lastReportAt: string | null }
  /** The host reported in this range, and its reports lack what the chart draws: not supported or not set up there. */
  | { kind: 'not-in-reports' };

export function chartEmptiness(reports: { data: HostSeriesResponse | undefined; isPlaceholderData: boolean }, lastReportAt: string | null): ChartEmptiness {
  if (!reports.data || reports.isPlaceholderData) return { kind: 'checking' };
  const reported = reports.data.series.some((series) => series.points.length > 0);
  return reported ? { kind: 'not-in-reports' } : { kind: 'no-reports', lastReportAt };
}
