import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { docSections } from '@/components/findings/doc-sections';
import { FINDINGS_TOPIC_DOCS } from '@/lib/protocol/findings';

test('a doc is cut at its # and ## headings, deeper headings and fenced lines staying in their section', () => {
  const doc = ['# r — title', '', '**Category:** x', '', '## What it means', 'text', '### detail', '```sh', '# a shell comment', '## not a heading', '```', '## Remedy ##', '- do it'];
  expect(docSections(doc.join('\n'))).toEqual([
    { title: 'r — title', markdown: '\n**Category:** x\n' },
    { title: 'What it means', markdown: 'text\n### detail\n```sh\n# a shell comment\n## not a heading\n```' },
    { title: 'Remedy', markdown: '- do it' },
  ]);
});

test('text before the first heading is a section without a title', () => {
  expect(docSections('intro\n\n## A\nbody')).toEqual([
    { title: '', markdown: 'intro\n' },
    { title: 'A', markdown: 'body' },
  ]);
  expect(docSections('')).toEqual([]);
});

test('every rule doc has the What it means and Remedy sections the rule panel shows', () => {
  const dir = path.resolve(import.meta.dirname, '../../../docs/findings');
  const methodPages = new Set(['README.md', ...FINDINGS_TOPIC_DOCS.map((topic) => `${topic}.md`)]);
  const docs = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && !methodPages.has(f));
  expect(docs.length).toBeGreaterThan(10);
  for (const file of docs) {
    const titles = docSections(fs.readFileSync(path.join(dir, file), 'utf8')).map((s) => s.title);
    expect(titles, file).toEqual(expect.arrayContaining(['What it means', 'Remedy']));
    expect(titles[0], file).toMatch(/^[a-z0-9.-]+ — /);
  }
});
