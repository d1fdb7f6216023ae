'use client';

import { useState } from 'react';
import { useIsClient } from '../hooks/use-is-client';
import { LocalTime } from '../time/local-time';
import { REGION_RANGES } from './search-params';
import { serializeRegionUrl } from './search-params';
import { useRegionsView } from './use-regions-view';

const RANGE_LABEL = { '1h': 'Last hour', '6h': 'Last 6 h', '24h': 'Last 24 h', '7d': 'Last 7 days' } as const;

export function RegionControls() {
  const { state, setState, query, compare, picked } = useRegionsView();
  const [copied, setCopied] = useState<string | null>(null);
  const isClient = useIsClient();
  const data = compare.data;
  const toggle = (region: string) => {
    const next = picked.includes(region) ? picked.filter((r) => r !== region) : [...picked, region];
    void setState({ regions: next });
  };
  // A shared link pins what this page shows now: the exact range read, the regions and the series.
  const shareLink = data && isClient
    ? `${window.location.origin}${serializeRegionUrl('/regions', { regions: picked, from: new Date(data.from), to: new Date(data.to), latency: state.latency, range: state.range })}`
    : null;
  const copy = async () => {
    if (!shareLink) return;
    try {
      await navigator.clipboard.writeText(shareLink);
      setCopied('Link copied: it shows this exact range.');
    } catch {
      setCopied(`Copy this link: ${shareLink}`);
    }
  };

  return (
    <section aria-label="What to compare" className="panel">
      <div className="filters" style={{ marginTop: 0 }}>
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend>Range</legend>
          <span className="chips">
            {REGION_RANGES.map((range) => (
              <button
                key={range}
                type="button"
                className="chip"
                aria-pressed={query.kind === 'relative' && state.range === range}
                onClick={() => setState({ range, from: null, to: null })}
              >
                {RANGE_LABEL[range]}
              </button>
            ))}
          </span>
        </fieldset>
        <div className="field">
          Showing
          <span style={{ color: 'var(--text)' }} data-testid="range-shown">
            {data ? (
              <>
                <LocalTime iso={data.from} /> – <LocalTime iso={data.to} />
              </>
            ) : (
              '—'
            )}
            {query.kind === 'absolute' && (
              <>
                {' '}
                (pinned){' '}
                <button type="button" className="button" onClick={() => setState({ from: null, to: null })}>
                  Follow now
                </button>
              </>
            )}
          </span>
        </div>
        <div className="field">
          Share
          <span>
            <button type="button" className="button" disabled={!shareLink} onClick={() => void copy()}>
              Copy link to this view
            </button>{' '}
            <span role="status" className="muted">
              {copied}
            </span>
          </span>
        </div>
      </div>
      <fieldset className="field" style={{ border: 0, padding: 0, margin: '8px 0 0' }}>
        <legend>Regions (pick two or more)</legend>
        <span className="chips">
          {data?.regions.map((region) => (
            <button key={region.region} type="button" className="chip" aria-pressed={picked.includes(region.region)} onClick={() => toggle(region.region)}>
              {region.region} <span className="muted">
                {region.hostCount} {region.hostCount === 1 ? 'host' : 'hosts'}
              </span>
            </button>
          ))}
        </span>
      </fieldset>
    </section>
  );
}
