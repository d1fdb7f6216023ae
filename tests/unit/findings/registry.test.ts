import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { FINDING_RULES, docsPathOf } from '../../../lib/findings/registry';

const sections = ['## What it means', '## Why it costs inference latency', '## Thresholds', '## Remedy'];

describe('the findings rule registry', () => {
  test('rule ids are unique and shaped like category.name', () => {
    const ids = FINDING_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+\.[a-z0-9-]+$/);
  });

  test.each(FINDING_RULES.map((r) => [r.id, r] as const))('%s has its file, its test beside it and a reference page', (id, rule) => {
    expect(fs.existsSync(`lib/findings/rules/${id}.ts`)).toBe(true);
    expect(fs.existsSync(`lib/findings/rules/${id}.test.ts`)).toBe(true);
    const doc = fs.readFileSync(docsPathOf(id), 'utf8');
    expect(doc.startsWith(`# ${id} — ${rule.title}\n`)).toBe(true);
    for (const section of sections) expect(doc).toContain(section);
    for (const name of Object.keys(rule.defaults)) expect(doc).toContain(`\`${name}\``);
  });

  test('lib/findings/rules/ holds the registered rules and their tests, nothing else', () => {
    const files = fs.readdirSync('lib/findings/rules').map((name) => name.replace(/(\.test)?\.ts$/, '')).sort();
    const ids = FINDING_RULES.flatMap((r) => [r.id, r.id]).sort();
    expect(files).toEqual(ids);
  });
});

describe('docs/findings/README.md', () => {
  test('lists every rule with a link to its page', () => {
    const index = fs.readFileSync('docs/findings/README.md', 'utf8');
    for (const rule of FINDING_RULES) expect(index).toContain(`[\`${rule.id}\`](${rule.id}.md)`);
  });
});
