import type { ReportKey, WriteRequest, WriteResult } from './writer';

export interface PlannedReport<R extends ReportKey = ReportKey> {
  hostId: number;
  report: R;
  /** Which request of the flush it came from, and where in it. */
  request: number;
  index: number;
}

/** Reports to store, each (host, seq) once; a second copy in the same flush is a duplicate before it reaches SQL. */
export interface WritePlan<R extends ReportKey> {
  unique: PlannedReport<R>[];
  duplicatesByRequest: number[][];
}

export function planWrites<R extends ReportKey>(requests: readonly WriteRequest<R>[]): WritePlan<R> {
  const seen = new Set<string>();
  const unique: PlannedReport<R>[] = [];
  const duplicatesByRequest: number[][] = requests.map(() => []);
  requests.forEach(({ hostId, reports }, request) => {
    reports.forEach((report, index) => {
      const key = `${hostId}:${report.seq}`;
      if (seen.has(key)) duplicatesByRequest[request]!.push(report.seq);
      else {
        seen.add(key);
        unique.push({ hostId, report, request, index });
      }
    });
  });
  return { unique, duplicatesByRequest };
}

/** Splits the plan's outcome back into one result per request. */
export function resultsByRequest(plan: WritePlan<ReportKey>, isNew: readonly boolean[], requestCount: number): WriteResult[] {
  const results: WriteResult[] = [];
  for (let i = 0; i < requestCount; i++) results.push({ acceptedSeqs: [], duplicateSeqs: [...plan.duplicatesByRequest[i]!] });
  plan.unique.forEach((entry, i) => {
    const result = results[entry.request]!;
    (isNew[i] ? result.acceptedSeqs : result.duplicateSeqs).push(entry.report.seq);
  });
  return results;
}
