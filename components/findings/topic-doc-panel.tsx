'use client';

import { Suspense, useEffect, type ReactNode } from 'react';
import type { FindingsTopic } from '@/lib/protocol/findings';
import { useFindingRuleIds, useFindingsTopicDocQuery } from '../hooks/use-finding-rules-query';
import { ErrorState, LoadingState } from '../states';
import { topicDocId } from './doc-links';
import { docSections } from './doc-sections';
import { LazyDocMarkdown, loadDocMarkdown } from './lazy-doc-markdown';
import { useFindingsUrlState } from './use-findings-url-state';

/** The topic doc the URL names (what rule docs link to, e.g. latency explained), above the rules, until closed. */
export function TopicDocPanel() {
  const { state, setState } = useFindingsUrlState();
  if (!state.doc) return null;
  return <TopicDoc key={state.doc} topic={state.doc} onClose={() => void setState({ doc: null })} />;
}

function TopicDoc({ topic, onClose }: { topic: FindingsTopic; onClose: () => void }) {
  const doc = useFindingsTopicDocQuery(topic);
  const ruleIds = useFindingRuleIds();
  useEffect(() => void loadDocMarkdown(), []);
  const title = (doc.data && docSections(doc.data.markdown)[0]?.title) || topic;
  let body: ReactNode;
  if (doc.isPending) body = <LoadingState label="Loading the doc…" />;
  else if (doc.error) body = <ErrorState what="the doc" error={doc.error} onRetry={() => void doc.refetch()} />;
  else if (!doc.data.markdown) body = <p className="muted">This doc is missing ({doc.data.docsPath}).</p>;
  else
    body = (
      <>
        <Suspense fallback={<LoadingState label="Loading the doc…" />}>
          <LazyDocMarkdown markdown={doc.data.markdown} ruleIds={ruleIds} headingOffset={1} />
        </Suspense>
        <p className="muted">
          Source: <code>{doc.data.docsPath}</code>
        </p>
      </>
    );
  return (
    <section id={topicDocId(topic)} className="panel topic-doc" aria-label={title} data-testid="topic-doc">
      <button type="button" className="button topic-doc-close" onClick={onClose}>
        Close
      </button>
      {body}
    </section>
  );
}
