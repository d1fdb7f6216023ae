import { createLoader, parseAsInteger, parseAsString, parseAsStringLiteral, type inferParserType } from 'nuqs/server';
import { FINDINGS_TOPIC_DOCS, SEVERITIES } from '@/lib/protocol/findings';

export const FINDING_STATE_FILTERS = ['open', 'pending', 'resolved', 'all'] as const;

/**
 * The findings page's URL state, parsed alike by app/findings/page.tsx and the client leaves. `rule`: the rule open;
 * `doc`: the topic doc shown above the rules.
 */
export const findingsSearchParams = {
  state: parseAsStringLiteral(FINDING_STATE_FILTERS).withDefault('open'),
  severity: parseAsStringLiteral(SEVERITIES),
  region: parseAsString.withDefault(''),
  labels: parseAsString.withDefault(''),
  host: parseAsInteger,
  rule: parseAsString,
  doc: parseAsStringLiteral(FINDINGS_TOPIC_DOCS),
};

export type FindingsUrlState = inferParserType<typeof findingsSearchParams>;

export const loadFindingsSearchParams = createLoader(findingsSearchParams);
