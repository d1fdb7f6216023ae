'use client';

import { useFindingRuleDocQuery } from '../hooks/use-finding-rules-query';
import { ErrorState, LoadingState } from '../states';
import { MarkdownView } from './markdown-view';
import { parseMarkdown, sectionsOf } from './markdown';

// The thresholds section is left out: the panel beside it shows the live defaults and the overrides in force.
const SHOWN_SECTIONS: Record<string, string> = {
  '': 'About',
  'What it means': 'What it means',
  'Why it costs inference latency': 'Why it costs latency',
  Remedy: 'How to fix it',
};

/** The rule's doc page (what, why, how to fix), rendered as text. */
export function RuleReference({ ruleId }: { ruleId: string }) {
  const doc = useFindingRuleDocQuery(ruleId);
  if (doc.isPending) return <LoadingState label="Loading the rule reference…" />;
  if (doc.error) return <ErrorState what="the rule reference" error={doc.error} onRetry={() => void doc.refetch()} />;
  if (!doc.data.markdown) return <p className="muted">This rule has no doc page yet ({doc.data.rule.docsPath}).</p>;
  const sections = sectionsOf(parseMarkdown(doc.data.markdown));
  const intro = sections.find((s) => /^[a-z0-9.-]+ — /.test(s.title));
  const shown = sections.filter((s) => s.title in SHOWN_SECTIONS || s === intro);
  return (
    <div className="rule-reference" data-testid="rule-reference">
      {shown.map((section, i) => (
        <section key={i} aria-label={SHOWN_SECTIONS[section.title] ?? 'About'}>
          {section !== intro && section.title && <h4>{SHOWN_SECTIONS[section.title]}</h4>}
          <MarkdownView blocks={section.blocks} headingOffset={3} />
        </section>
      ))}
      <p className="muted">
        Source: <code>{doc.data.rule.docsPath}</code>
      </p>
    </div>
  );
}
