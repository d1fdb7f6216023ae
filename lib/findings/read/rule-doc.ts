import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { NotFoundError } from '../../errors';
import { FINDINGS_TOPIC_DOCS, type FindingRuleDoc, type FindingsTopicDoc } from '../../protocol/findings';
import { describeRule, docsPathOf, findRule } from '../registry';

/** A registered rule with its doc page; only registered ids reach the file system, so no path comes from the caller. */
export async function getRuleDoc(ruleId: string, root = process.cwd()): Promise<FindingRuleDoc> {
  const rule = findRule(ruleId);
  if (!rule) throw new NotFoundError(`no findings rule ${ruleId}`);
  const markdown = await readFile(path.join(root, docsPathOf(rule.id)), 'utf8').catch(() => '');
  return { rule: describeRule(rule), markdown };
}

/** One of FINDINGS_TOPIC_DOCS; as with rules, only a listed name reaches the file system. */
export async function getTopicDoc(name: string, root = process.cwd()): Promise<FindingsTopicDoc> {
  const topic = FINDINGS_TOPIC_DOCS.find((t) => t === name);
  if (!topic) throw new NotFoundError(`no findings doc ${name}`);
  const docsPath = docsPathOf(topic);
  const markdown = await readFile(path.join(root, docsPath), 'utf8').catch(() => '');
  return { topic, docsPath, markdown };
}
