'use client';

import { LocalTime } from '../time/local-time';

/** A host chart's empty state when the host sent nothing in the range, as opposed to sending reports without it. */
export function NoReportsInRange({ lastReportAt }: { lastReportAt: string | null }) {
  if (lastReportAt === null) return <>No data: this host has not sent a report yet.</>;
  return (
    <>
      No data in this range: this host sent no report in it. Its newest report is from <LocalTime iso={lastReportAt} />.
    </>
  );
}
