import { FINDINGS_TOPIC_DOCS } from '@/lib/protocol/findings';

/** The id a rule's group has on the findings page, so a link can scroll to the group it opens. */
export const ruleGroupId = (ruleId: string) => `rule-${ruleId.replace(/\./g, '-')}`;
export const topicDocId = (topic: string) => `doc-${topic}`;

/**
 * Where a link in a findings doc goes: another doc in docs/findings/ as the findings page shows it (a rule's group,
 * or the topic panel), or an http(s) page; null for anything else (another folder's file, `javascript:`), shown as text.
 */
export function docLinkHref(target: string, ruleIds: ReadonlySet<string>): string | null {
  if (/^https?:\/\/[^\s]+$/i.test(target)) return target;
  const doc = /^(?:\.\/)?([a-z0-9]+(?:[.-][a-z0-9]+)*)\.md(?:#.*)?$/.exec(target)?.[1];
  if (doc === undefined) return null;
  if (ruleIds.has(doc)) return `/findings?rule=${encodeURIComponent(doc)}#${ruleGroupId(doc)}`;
  if ((FINDINGS_TOPIC_DOCS as readonly string[]).includes(doc)) return `/findings?doc=${doc}#${topicDocId(doc)}`;
  return null;
}
