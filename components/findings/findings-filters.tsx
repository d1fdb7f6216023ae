'use client';

import { SEVERITIES, type Severity } from '@/lib/protocol/findings';
import { useDebouncedCommit } from '../hooks/use-debounced-commit';
import { isFiltered, labelsFilterError } from './findings-filter';
import { FINDING_STATE_FILTERS } from './search-params';
import { useFindingsUrlState } from './use-findings-url-state';

const STATE_LABEL: Record<(typeof FINDING_STATE_FILTERS)[number], string> = {
  open: 'open',
  pending: 'pending (not yet long enough)',
  resolved: 'resolved (history)',
  all: 'all, with history',
};

export function FindingsFilters() {
  const { state, setState, filter } = useFindingsUrlState();
  const [region, setRegion] = useDebouncedCommit(state.region, (value) => void setState({ region: value.trim() || null }), 400);
  const [labels, setLabels] = useDebouncedCommit(state.labels, (value) => void setState({ labels: value.trim() || null }), 600);
  const labelsError = labelsFilterError(labels);
  return (
    <form className="filters" role="search" aria-label="Filter findings" onSubmit={(event) => event.preventDefault()}>
      <label className="field">
        State
        <select value={state.state} onChange={(event) => setState({ state: event.target.value as typeof state.state })}>
          {FINDING_STATE_FILTERS.map((value) => (
            <option key={value} value={value}>
              {STATE_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="field bare">
        <legend>Severity</legend>
        <span className="chips">
          {SEVERITIES.map((severity: Severity) => (
            <button
              key={severity}
              type="button"
              className={`chip sev-${severity}`}
              aria-pressed={state.severity === severity}
              onClick={() => setState({ severity: state.severity === severity ? null : severity })}
            >
              {severity}
            </button>
          ))}
        </span>
      </fieldset>
      <label className="field">
        Region
        <input type="search" value={region} onChange={(event) => setRegion(event.target.value)} placeholder="e.g. oslo" />
      </label>
      <label className="field">
        Labels
        <input
          type="text"
          value={labels}
          onChange={(event) => setLabels(event.target.value)}
          placeholder="key:value"
          aria-invalid={labelsError !== null}
          aria-describedby={labelsError ? 'findings-labels-error' : undefined}
        />
        {labelsError && (
          <span id="findings-labels-error" className="error">
            {labelsError}
          </span>
        )}
      </label>
      {state.host !== null && (
        <span className="field">
          Host
          <button type="button" className="chip" aria-pressed="true" onClick={() => setState({ host: null })} aria-label={`Only host ${state.host}: show every host`}>
            host #{state.host} ✕
          </button>
        </span>
      )}
      <button
        type="button"
        className="button"
        disabled={!isFiltered(filter) && !state.region && !state.labels}
        onClick={() => setState({ state: null, severity: null, region: null, labels: null, host: null })}
      >
        Clear filters
      </button>
    </form>
  );
}
