'use client';

import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { HostChartsSection } from './host-charts-section';
import { FindingsSummary, HostFindings } from './host-findings';
import { HostHeader } from './host-header';
import { LatencyExplained } from './latency-explained';
import { RangeControls } from './range-controls';
import { serializeHostUrl } from './search-params';
import { useHostView } from './use-host-view';

function HostRangeControls() {
  const { state, setState, range, live, lastWeek, setPreset, setAbsolute } = useHostView();
  const pathname = usePathname();
  return (
    <RangeControls
      range={range}
      live={live}
      onPreset={setPreset}
      onAbsolute={setAbsolute}
      onLive={(next) => void setState({ live: next })}
      shareUrl={(pinned) => `${window.location.origin}${serializeHostUrl(pathname, { ...state, ...pinned, live: true })}`}
    >
      <button type="button" className="chip" aria-pressed={lastWeek} onClick={() => void setState({ lastWeek: !lastWeek })}>
        Same range last week
      </button>
    </RangeControls>
  );
}

/** The host page: who it is, what is wrong (in brief), the range, why latency moved, every chart, each finding in full, and what it runs on. */
export function HostView({ hostId, inventory }: { hostId: number; inventory: ReactNode }) {
  return (
    <>
      <HostHeader hostId={hostId} />
      <FindingsSummary hostId={hostId} />
      <HostRangeControls />
      <LatencyExplained hostId={hostId} />
      <HostChartsSection hostId={hostId} />
      <HostFindings hostId={hostId} />
      {inventory}
    </>
  );
}
