import { createLoader, parseAsInteger, parseAsString, parseAsStringLiteral, type inferParserType } from 'nuqs/server';
import { SEVERITIES } from '@/lib/protocol/findings';

export const FINDING_STATE_FILTERS = ['open', 'pending', 'resolved', 'all'] as const;

/** The findings page's URL state, parsed alike by app/findings/page.tsx and the client leaves. `rule`: the rule open. */
export const findingsSearchParams = {
  state: parseAsStringLiteral(FINDING_STATE_FILTERS).withDefault('open'),
  severity: parseAsStringLiteral(SEVERITIES),
  region: parseAsString.withDefault(''),
  labels: parseAsString.withDefault(''),
  host: parseAsInteger,
  rule: parseAsString,
};

export type FindingsUrlState = inferParserType<typeof findingsSearchParams>;

export const loadFindingsSearchParams = createLoader(findingsSearchParams);
