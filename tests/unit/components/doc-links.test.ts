import { expect, test } from 'vitest';
import { docLinkHref } from '@/components/findings/doc-links';

const RULE_IDS = new Set(['cpu.steal-high', 'latency.p99-regression']);

test.each([
  ['https://example.com/x', 'https://example.com/x'],
  ['http://example.com', 'http://example.com'],
  ['cpu.steal-high.md', '/findings?rule=cpu.steal-high#rule-cpu-steal-high'],
  ['./latency.p99-regression.md#remedy', '/findings?rule=latency.p99-regression#rule-latency-p99-regression'],
  ['latency-explained.md', '/findings?doc=latency-explained#doc-latency-explained'],
  ['./latency-explained.md#the-method', '/findings?doc=latency-explained#doc-latency-explained'],
  ['no-such-rule.md', null],
  ['README.md', null],
  ['javascript:alert(1)', null],
  ['data:text/html,<b>x</b>', null],
  ['../operations.md', null],
  ['//evil.example/x', null],
])('%s → %s', (target, expected) => {
  expect(docLinkHref(target, RULE_IDS)).toBe(expected);
});
