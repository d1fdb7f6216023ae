'use client';

import type { FindingRuleDescription } from '@/lib/protocol/findings';
import { formatCount } from '../format';
import { useAccess } from '../hooks/use-session-query';
import { useFindingRulesQuery } from '../hooks/use-finding-rules-query';
import { useFindingsSummaryQuery } from '../hooks/use-findings-summary-query';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { isFiltered } from './findings-filter';
import { RuleGroup } from './rule-group';
import { useFindingsUrlState } from './use-findings-url-state';

/** Findings fleet-wide, one group per rule (worst first), then every other rule as a reference. */
export function FindingsGroups() {
  const { state, setState, filter } = useFindingsUrlState();
  const summary = useFindingsSummaryQuery(filter);
  const rules = useFindingRulesQuery();
  const { canWrite } = useAccess();

  if (summary.isPending || rules.isPending) return <LoadingState label="Loading findings…" />;
  if (summary.error && !summary.data) return <ErrorState what="the findings" error={summary.error} onRetry={() => void summary.refetch()} />;
  if (rules.error) return <ErrorState what="the rule reference" error={rules.error} onRetry={() => void rules.refetch()} />;

  const byId = new Map<string, FindingRuleDescription>(rules.data.rules.map((r) => [r.id, r]));
  const withFindings = summary.data!.rules;
  const quiet = rules.data.rules.filter((r) => !withFindings.some((s) => s.ruleId === r.id));
  const toggle = (ruleId: string) => setState({ rule: state.rule === ruleId ? null : ruleId });
  const describe = (ruleId: string, title: string): FindingRuleDescription =>
    byId.get(ruleId) ?? { id: ruleId, title, category: 'agent', scope: 'host', severities: [], thresholds: [], docsPath: `docs/findings/${ruleId}.md` };

  return (
    <>
      <div className="pager">
        <span aria-live="polite" data-testid="findings-total">
          {summary.data!.total === 0
            ? 'No findings match'
            : `${formatCount(summary.data!.total)} ${summary.data!.total === 1 ? 'finding' : 'findings'} from ${withFindings.length} ${withFindings.length === 1 ? 'rule' : 'rules'}`}
        </span>
        <span className="updating" aria-hidden={!summary.isPlaceholderData}>
          {summary.isPlaceholderData ? 'updating…' : summary.error ? 'refresh failed, retrying' : ''}
        </span>
      </div>
      {withFindings.length === 0 && (
        <EmptyState title={isFiltered(filter) ? 'No findings match these filters.' : 'No open findings: every rule passes on every host.'}>
          <p className="muted">
            {isFiltered(filter)
              ? 'Clear the filters, or look at the history (state: resolved).'
              : 'Rules judge each host’s inventory when it changes and its recent series every minute; new hosts are judged within seconds of their first report.'}
          </p>
        </EmptyState>
      )}
      <div className="rule-groups" aria-label="Findings by rule">
        {withFindings.map((s) => (
          <RuleGroup
            key={s.ruleId}
            rule={describe(s.ruleId, s.title)}
            summary={s}
            open={state.rule === s.ruleId}
            onToggle={() => toggle(s.ruleId)}
            filter={filter}
            canWrite={canWrite}
          />
        ))}
      </div>
      <h2>Rule reference</h2>
      <p className="muted">Every other rule inferwatch checks, with nothing matching the filters. Open one for what it checks and how to fix it.</p>
      <div className="rule-groups" aria-label="Other rules">
        {quiet.map((rule) => (
          <RuleGroup key={rule.id} rule={rule} summary={null} open={state.rule === rule.id} onToggle={() => toggle(rule.id)} filter={filter} canWrite={canWrite} />
        ))}
      </div>
    </>
  );
}
