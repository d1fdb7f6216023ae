'use client';

import type { Alert, AlertRule } from '@/lib/protocol/alerts';
import { SEVERITIES } from '@/lib/protocol/findings';
import { formatCount } from '../format';
import { useAccess } from '../hooks/use-session-query';
import { useAlertRulesQuery, useSilencesQuery } from '../hooks/use-alert-config-queries';
import { ALERTS_REFRESH_MS, useAlertsQuery, type AlertsQuery } from '../hooks/use-alerts-query';
import { useDebouncedCommit } from '../hooks/use-debounced-commit';
import { useNow } from '../hooks/use-now';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { AlertItem } from './alert-item';
import { ALERT_SECTIONS, HISTORY_MS, HISTORY_RANGES } from './search-params';
import { silencesOf } from './silence-match';
import { useAlertsUrlState } from './use-alerts-url-state';

const SECTION_LABEL: Record<(typeof ALERT_SECTIONS)[number], string> = { all: 'firing, pending and resolved', firing: 'firing', pending: 'pending', resolved: 'resolved' };
const MINUTE_MS = 60_000;

function AlertSection({ title, alerts, rules, empty, testId }: { title: string; alerts: Alert[]; rules: Map<string, AlertRule>; empty: string; testId: string }) {
  const silences = useSilencesQuery();
  const { canWrite } = useAccess();
  const nowMs = useNow(ALERTS_REFRESH_MS);
  return (
    <section aria-label={title} data-testid={testId}>
      <h2>
        {title} <span className="muted">({formatCount(alerts.length)})</span>
      </h2>
      {alerts.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul className="alert-list">
          {alerts.map((alert) => (
            <AlertItem
              key={alert.id}
              alert={alert}
              rule={rules.get(alert.ruleId)}
              silencedBy={alert.state === 'resolved' ? [] : silencesOf(silences.data?.silences ?? [], alert.labels, nowMs)}
              canWrite={canWrite}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function AlertFilters({ rules }: { rules: AlertRule[] }) {
  const { state, setState } = useAlertsUrlState();
  const [region, setRegion] = useDebouncedCommit(state.region, (value) => void setState({ region: value.trim() || null }), 400);
  return (
    <form className="filters" role="search" aria-label="Filter alerts" onSubmit={(e) => e.preventDefault()}>
      <label className="field">
        Show
        <select value={state.show} onChange={(e) => setState({ show: e.target.value as typeof state.show })}>
          {ALERT_SECTIONS.map((s) => (
            <option key={s} value={s}>
              {SECTION_LABEL[s]}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="field bare">
        <legend>Severity</legend>
        <span className="chips">
          {SEVERITIES.map((s) => (
            <button key={s} type="button" className={`chip sev-${s}`} aria-pressed={state.severity === s} onClick={() => setState({ severity: state.severity === s ? null : s })}>
              {s}
            </button>
          ))}
        </span>
      </fieldset>
      <label className="field">
        Rule
        <select value={state.rule ?? ''} onChange={(e) => setState({ rule: e.target.value || null })}>
          <option value="">every rule</option>
          {rules.map((r) => (
            <option key={r.id} value={r.id}>
              {r.title}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Region
        <input type="search" value={region} onChange={(e) => setRegion(e.target.value)} placeholder="e.g. oslo" />
      </label>
      <label className="field">
        History
        <select value={state.history} onChange={(e) => setState({ history: e.target.value as typeof state.history })}>
          {HISTORY_RANGES.map((r) => (
            <option key={r} value={r}>
              last {r}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}

/** Firing, then pending, then what resolved within the history range; all filtered by the URL. */
export function AlertsList() {
  const { state } = useAlertsUrlState();
  const rules = useAlertRulesQuery();
  const base: AlertsQuery = {};
  if (state.severity) base.severity = state.severity;
  if (state.rule) base.rule = state.rule;
  if (state.region.trim()) base.region = state.region.trim();
  const active = useAlertsQuery({ ...base, state: 'active' });
  const fromMs = Math.floor(useNow(ALERTS_REFRESH_MS) / MINUTE_MS) * MINUTE_MS - HISTORY_MS[state.history];
  const history = useAlertsQuery({ ...base, state: 'resolved', from: new Date(fromMs).toISOString(), limit: 500 });
  const ruleList = rules.data?.rules ?? [];
  const byId = new Map(ruleList.map((r) => [r.id, r]));

  if (active.isPending) return <LoadingState label="Loading alerts…" />;
  if (active.error && !active.data) return <ErrorState what="the alerts" error={active.error} onRetry={() => void active.refetch()} />;
  const firing = active.data!.alerts.filter((a) => a.state === 'firing');
  const pending = active.data!.alerts.filter((a) => a.state === 'pending');
  const enabledRules = ruleList.filter((r) => r.enabled).length;
  return (
    <>
      <AlertFilters rules={ruleList} />
      <div className="pager">
        <span className="muted">
          {rules.data ? `${enabledRules} of ${ruleList.length} rules enabled; the engine evaluates every 15 s and right after each ingest.` : ''}
        </span>
        <span className="updating" aria-hidden={!active.isPlaceholderData}>
          {active.isPlaceholderData ? 'updating…' : active.error ? 'refresh failed, retrying' : ''}
        </span>
      </div>
      {(state.show === 'all' || state.show === 'firing') && (
        <AlertSection title="Firing" testId="alerts-firing" alerts={firing} rules={byId} empty="Nothing is firing. Rules that fire notify their channels; see the Channels tab." />
      )}
      {(state.show === 'all' || state.show === 'pending') && (
        <AlertSection title="Pending" testId="alerts-pending" alerts={pending} rules={byId} empty="Nothing pending: no rule is over its threshold and waiting out its ‘for’ duration." />
      )}
      {(state.show === 'all' || state.show === 'resolved') &&
        (history.error && !history.data ? (
          <ErrorState what="the alert history" error={history.error} onRetry={() => void history.refetch()} />
        ) : history.data ? (
          <AlertSection
            title={`Resolved in the last ${state.history}`}
            testId="alerts-resolved"
            alerts={history.data.alerts}
            rules={byId}
            empty="Nothing resolved in this range; pick a longer history above."
          />
        ) : (
          <LoadingState label="Loading the history…" />
        ))}
      {active.data!.alerts.length === 0 && state.show === 'all' && ruleList.length > 0 && enabledRules === 0 && (
        <EmptyState title="Every alert rule is disabled.">
          <p className="muted">Enable rules in the Rules tab (the editor role needed).</p>
        </EmptyState>
      )}
    </>
  );
}
