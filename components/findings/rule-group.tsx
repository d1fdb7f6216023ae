'use client';

import { SEVERITIES, type FindingRuleDescription, type FindingRuleSummary } from '@/lib/protocol/findings';
import { formatCount } from '../format';
import { ruleGroupId } from './doc-links';
import { FindingList } from './finding-list';
import type { FindingsFilter } from './findings-filter';
import { RuleReference } from './rule-reference';
import { ThresholdsPanel } from './thresholds-panel';

const CATEGORY_LABEL: Record<string, string> = { 'noisy-neighbours': 'noisy neighbours', 'instruction-sets': 'instruction sets' };

/** One rule: its counts in the header; opened, its reference (what, why, how to fix), its findings and its thresholds. */
export function RuleGroup({
  rule,
  summary,
  open,
  onToggle,
  filter,
  canWrite,
}: {
  rule: FindingRuleDescription;
  summary: FindingRuleSummary | null;
  open: boolean;
  onToggle: () => void;
  filter: FindingsFilter;
  canWrite: boolean;
}) {
  const groupId = ruleGroupId(rule.id);
  const bodyId = `${groupId}-body`;
  return (
    <section id={groupId} className={`rule-group${open ? ' open' : ''}`} data-rule-id={rule.id} aria-label={rule.title}>
      <h3 className="rule-group-head">
        <button type="button" className="rule-toggle" aria-expanded={open} aria-controls={bodyId} onClick={onToggle}>
          <span aria-hidden="true" className="caret">
            {open ? '▾' : '▸'}
          </span>
          <span className="rule-title">{rule.title}</span>
          <code className="rule-id">{rule.id}</code>
          <span className="muted">{CATEGORY_LABEL[rule.category] ?? rule.category}</span>
          <span className="rule-counts">
            {summary ? (
              <>
                {SEVERITIES.filter((s) => summary.counts[s] > 0).map((s) => (
                  <span key={s} className={`badge badge-${s}`}>
                    {formatCount(summary.counts[s])} {s}
                  </span>
                ))}
                <span className="muted">
                  {formatCount(summary.hosts)} {summary.hosts === 1 ? 'host' : 'hosts'}
                  {summary.acknowledged > 0 && ` · ${formatCount(summary.acknowledged)} acknowledged`}
                </span>
              </>
            ) : (
              <span className="muted">none</span>
            )}
          </span>
        </button>
      </h3>
      {open && (
        <div id={bodyId} className="rule-group-body">
          <div className="rule-body-grid">
            <div>
              <h4>Findings</h4>
              {summary ? <FindingList ruleId={rule.id} filter={filter} canWrite={canWrite} /> : <p className="muted">No findings of this rule match the filters.</p>}
            </div>
            <div>
              <h4>Rule reference</h4>
              <RuleReference ruleId={rule.id} />
              <ThresholdsPanel rule={rule} canWrite={canWrite} />
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
