import { SEVERITIES, type FindingCounts, type Severity } from '@/lib/protocol/findings';

/** A host's most severe open finding's severity, null without any: what its row is highlighted by. */
export function worstSeverityOf(counts: FindingCounts): Severity | null {
  return SEVERITIES.find((severity) => counts[severity] > 0) ?? null;
}
