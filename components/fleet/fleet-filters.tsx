'use client';

import { FINDING_FILTERS, HOST_STATUSES, type FindingFilter, type HostStatus } from '@/lib/protocol/read-api/fleet';
import { useDebouncedCommit } from '../hooks/use-debounced-commit';
import { useFleetQuery } from '../hooks/use-fleet-query';
import { labelFilterError } from './fleet-query';
import { STATUS_LABEL } from './status-label';
import { useFleetUrlState } from './use-fleet-url-state';

const FINDING_LABEL: Record<FindingFilter, string> = {
  any: 'any open finding',
  none: 'no open finding',
  critical: 'worst is critical',
  warning: 'worst is warning',
  info: 'worst is info',
};

export function FleetFilters() {
  const { state, setState, query } = useFleetUrlState();
  const { data } = useFleetQuery(query);
  const [q, setQ] = useDebouncedCommit(state.q, (value) => void setState({ q: value || null, page: null }), 300);
  const [label, setLabel] = useDebouncedCommit(state.label, (value) => void setState({ label: value || null, page: null }), 600);
  const labelError = labelFilterError(label);
  const regions = [...new Set([...(data?.regions ?? []), ...state.region])];
  const toggle = <T extends string>(list: readonly T[], item: T): T[] | null => {
    const next = list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
    return next.length ? next : null;
  };
  const filtered = Boolean(state.q || state.region.length || state.status.length || state.finding || state.label);

  return (
    <form className="filters" role="search" aria-label="Filter hosts" onSubmit={(event) => event.preventDefault()}>
      <label className="field">
        Search
        <input type="search" value={q} onChange={(event) => setQ(event.target.value)} placeholder="host, region or label" />
      </label>
      <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend>Region</legend>
        <span className="chips">
          {regions.length === 0 && <span className="muted">—</span>}
          {regions.map((region) => (
            <button
              key={region}
              type="button"
              className="chip"
              aria-pressed={state.region.includes(region)}
              onClick={() => setState({ region: toggle(state.region, region), page: null })}
            >
              {region}
            </button>
          ))}
        </span>
      </fieldset>
      <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend>Status</legend>
        <span className="chips">
          {HOST_STATUSES.map((status: HostStatus) => (
            <button
              key={status}
              type="button"
              className="chip"
              aria-pressed={state.status.includes(status)}
              onClick={() => setState({ status: toggle(state.status, status), page: null })}
            >
              {STATUS_LABEL[status]}
            </button>
          ))}
        </span>
      </fieldset>
      <label className="field">
        Findings
        <select
          value={state.finding ?? ''}
          onChange={(event) => setState({ finding: (event.target.value || null) as FindingFilter | null, page: null })}
        >
          <option value="">all hosts</option>
          {FINDING_FILTERS.map((finding) => (
            <option key={finding} value={finding}>
              {FINDING_LABEL[finding]}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Labels
        <input
          type="text"
          value={label}
          onChange={(event) => setLabel(event.target.value)}
          placeholder="key:value"
          aria-invalid={labelError !== null}
          aria-describedby={labelError ? 'label-filter-error' : undefined}
        />
        {labelError && (
          <span id="label-filter-error" className="error">
            {labelError}
          </span>
        )}
      </label>
      <label className="field">
        Latency series
        <select value={state.latency ?? ''} onChange={(event) => setState({ latency: event.target.value || null })}>
          <option value="">all series</option>
          {[...new Set([...(data?.latencyNames ?? []), ...(state.latency ? [state.latency] : [])])].map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="button"
        disabled={!filtered}
        onClick={() => setState({ q: null, region: null, status: null, finding: null, label: null, page: null })}
      >
        Clear filters
      </button>
    </form>
  );
}
