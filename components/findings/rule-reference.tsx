'use client';

import { Suspense, useEffect } from 'react';
import { useFindingRuleDocQuery, useFindingRuleIds } from '../hooks/use-finding-rules-query';
import { ErrorState, LoadingState } from '../states';
import { docSections } from './doc-sections';
import { LazyDocMarkdown, loadDocMarkdown } from './lazy-doc-markdown';

// The thresholds section is left out: the panel beside it shows the live defaults and the overrides in force.
const SHOWN_SECTIONS: Record<string, string> = {
  '': 'About',
  'What it means': 'What it means',
  'Why it costs inference latency': 'Why it costs latency',
  Remedy: 'How to fix it',
};

/** The rule's doc page (what, why, how to fix), rendered from its Markdown. */
export function RuleReference({ ruleId }: { ruleId: string }) {
  const doc = useFindingRuleDocQuery(ruleId);
  const ruleIds = useFindingRuleIds();
  useEffect(() => void loadDocMarkdown(), []);
  if (doc.isPending) return <LoadingState label="Loading the rule reference…" />;
  if (doc.error) return <ErrorState what="the rule reference" error={doc.error} onRetry={() => void doc.refetch()} />;
  if (!doc.data.markdown) return <p className="muted">This rule has no doc page yet ({doc.data.rule.docsPath}).</p>;
  const sections = docSections(doc.data.markdown);
  const intro = sections.find((s) => /^[a-z0-9.-]+ — /.test(s.title));
  const shown = sections.filter((s) => s.title in SHOWN_SECTIONS || s === intro);
  return (
    <div className="rule-reference" data-testid="rule-reference">
      <Suspense fallback={<LoadingState label="Loading the rule reference…" />}>
        {shown.map((section, i) => (
          <section key={i} aria-label={SHOWN_SECTIONS[section.title] ?? 'About'}>
            {section !== intro && section.title && <h4>{SHOWN_SECTIONS[section.title]}</h4>}
            <LazyDocMarkdown markdown={section.markdown} ruleIds={ruleIds} headingOffset={3} />
          </section>
        ))}
      </Suspense>
      <p className="muted">
        Source: <code>{doc.data.rule.docsPath}</code>
      </p>
    </div>
  );
}
