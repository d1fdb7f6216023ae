'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { useIsClient } from '../hooks/use-is-client';
import { useNow } from '../hooks/use-now';
import { LocalTime } from '../time/local-time';
import {
  PRESET_LABEL,
  RANGE_PRESETS,
  frozenRange,
  fromLocalInputValue,
  resolveRange,
  scaledRange,
  shiftedRange,
  toLocalInputValue,
  type RangePreset,
  type TimeRange,
} from './time-range';

export interface RangeControlsProps {
  range: TimeRange;
  live: boolean;
  onPreset: (preset: RangePreset) => void;
  onAbsolute: (fromMs: number, toMs: number) => void;
  onLive: (live: boolean) => void;
  /** The page's URL with the range pinned to what the viewer sees now. */
  shareUrl: (pinned: { from: Date; to: Date }) => string;
  /** More toggles of the page, after the range's. */
  children?: ReactNode;
}

function CustomRange({ range, onAbsolute }: Pick<RangeControlsProps, 'range' | 'onAbsolute'>) {
  const [shown] = useState(() => resolveRange(range, Date.now()));
  const [from, setFrom] = useState(() => toLocalInputValue(shown.fromMs));
  const [to, setTo] = useState(() => toLocalInputValue(shown.toMs));
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const fromMs = fromLocalInputValue(from);
    const toMs = fromLocalInputValue(to);
    if (fromMs === null || toMs === null) return setError('Give both ends as a date and time.');
    if (fromMs >= toMs) return setError('The start must be before the end.');
    setError(null);
    onAbsolute(fromMs, toMs);
  };
  return (
    <form className="filters custom-range" onSubmit={submit} aria-label="Custom range">
      <label className="field">
        From (your time zone)
        <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} required />
      </label>
      <label className="field">
        To
        <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} required />
      </label>
      <button type="submit" className="button">
        Show this range
      </button>
      <span role="alert" className="error">
        {error}
      </span>
    </form>
  );
}

/** Presets, a custom range, earlier/later and zoom buttons (the keyboard's drag-to-zoom), live updates and a share link. */
export function RangeControls({ range, live, onPreset, onAbsolute, onLive, shareUrl, children }: RangeControlsProps) {
  const isClient = useIsClient();
  const now = useNow(10_000);
  const [customOpen, setCustomOpen] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const shown = resolveRange(range, now);
  const pinned = range.kind === 'absolute';
  const go = (next: { fromMs: number; toMs: number }) => onAbsolute(next.fromMs, next.toMs);
  const copy = async () => {
    const link = shareUrl(frozenRange(range, Date.now()));
    try {
      await navigator.clipboard.writeText(link);
      setCopied('Link copied: it opens this exact range.');
    } catch {
      setCopied(`Copy this link: ${link}`);
    }
  };

  return (
    <section aria-label="Time range" className="panel range-controls">
      <div className="filters" style={{ marginTop: 0 }}>
        <fieldset className="field plain-fieldset">
          <legend>Range</legend>
          <span className="chips">
            {RANGE_PRESETS.map((preset) => (
              <button
                key={preset}
                type="button"
                className="chip"
                aria-pressed={!pinned && range.preset === preset}
                onClick={() => onPreset(preset)}
              >
                {PRESET_LABEL[preset]}
              </button>
            ))}
            <button type="button" className="chip" aria-pressed={customOpen} aria-expanded={customOpen} onClick={() => setCustomOpen(!customOpen)}>
              Custom…
            </button>
          </span>
        </fieldset>
        <div className="field">
          Move
          <span className="chips">
            <button type="button" className="button" onClick={() => go(shiftedRange(range, Date.now(), -1))} aria-label="Earlier by half the range">
              ◀ Earlier
            </button>
            <button
              type="button"
              className="button"
              onClick={() => go(shiftedRange(range, Date.now(), 1))}
              disabled={!pinned}
              aria-label="Later by half the range"
            >
              Later ▶
            </button>
            <button type="button" className="button" onClick={() => go(scaledRange(range, Date.now(), 0.5))} aria-label="Zoom in to the middle half">
              Zoom in
            </button>
            <button type="button" className="button" onClick={() => go(scaledRange(range, Date.now(), 2))} aria-label="Zoom out to twice the range">
              Zoom out
            </button>
          </span>
        </div>
        <div className="field">
          Updates
          <span className="chips">
            <button type="button" className="chip" aria-pressed={!pinned && live} disabled={pinned} onClick={() => onLive(!live)}>
              {pinned ? 'Pinned range' : live ? 'Live' : 'Paused'}
            </button>
            {children}
          </span>
        </div>
        <div className="field">
          Share
          <span>
            <button type="button" className="button" onClick={() => void copy()} disabled={!isClient}>
              Copy link to this view
            </button>{' '}
            <span role="status" className="muted">
              {copied}
            </span>
          </span>
        </div>
      </div>
      {customOpen && <CustomRange key={pinned ? `${range.fromMs}-${range.toMs}` : range.preset} range={range} onAbsolute={onAbsolute} />}
      <p className="muted range-shown" data-testid="range-shown">
        Showing{' '}
        {isClient || pinned ? (
          <>
            <LocalTime iso={new Date(shown.fromMs).toISOString()} /> – <LocalTime iso={new Date(shown.toMs).toISOString()} />
          </>
        ) : (
          `the last ${PRESET_LABEL[range.kind === 'relative' ? range.preset : '1h']}`
        )}
        {pinned ? (
          <>
            {' '}
            (pinned){' '}
            <button type="button" className="button" onClick={() => onPreset('1h')}>
              Back to live
            </button>
          </>
        ) : (
          '. Drag across any chart to zoom in.'
        )}
      </p>
    </section>
  );
}
