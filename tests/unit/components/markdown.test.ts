import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseCodeSpans, parseInline, parseMarkdown, safeHref, sectionsOf, splitTableRow } from '@/components/findings/markdown';

describe('parseInline', () => {
  test('code, strong, emphasis and links become nodes; the rest stays text', () => {
    expect(parseInline('set `OMP_NUM_THREADS=2` **now**, *then* see [steal](cpu.steal-high.md)')).toEqual([
      { kind: 'text', text: 'set ' },
      { kind: 'code', text: 'OMP_NUM_THREADS=2' },
      { kind: 'text', text: ' ' },
      { kind: 'strong', children: [{ kind: 'text', text: 'now' }] },
      { kind: 'text', text: ', ' },
      { kind: 'em', children: [{ kind: 'text', text: 'then' }] },
      { kind: 'text', text: ' see ' },
      { kind: 'link', href: '/findings?rule=cpu.steal-high', children: [{ kind: 'text', text: 'steal' }] },
    ]);
  });

  test('markup is text, never an element', () => {
    expect(parseInline('<img src=x onerror=alert(1)> and <script>x</script>')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> and <script>x</script>' },
    ]);
  });

  test('snake_case and a lone asterisk are not emphasis', () => {
    expect(parseInline('KMP_BLOCK_TIME = 2 * 3')).toEqual([{ kind: 'text', text: 'KMP_BLOCK_TIME = 2 * 3' }]);
  });
});

describe('safeHref', () => {
  test.each([
    ['https://example.com/x', 'https://example.com/x'],
    ['http://example.com', 'http://example.com'],
    ['cpu.steal-high.md', '/findings?rule=cpu.steal-high'],
    ['./latency-explained.md#method', '/findings?rule=latency-explained'],
    ['javascript:alert(1)', null],
    ['data:text/html,<b>x</b>', null],
    ['../operations.md', null],
    ['//evil.example/x', null],
  ])('%s → %s', (target, expected) => {
    expect(safeHref(target)).toBe(expected);
  });
});

test('a table row keeps pipes inside code spans', () => {
  expect(splitTableRow('| `a|b` | c | d |')).toEqual(['`a|b`', 'c', 'd']);
});

test('blocks: heading, paragraph joined across lines, list with continuation, table, code fence', () => {
  const blocks = parseMarkdown(
    ['# t', '', 'one', 'two', '', '- a', '  a2', '- b', '', '| x | y |', '|---|---|', '| 1 | 2 |', '', '```sh', 'echo <b>', '```'].join('\n'),
  );
  expect(blocks).toEqual([
    { kind: 'heading', level: 1, children: [{ kind: 'text', text: 't' }] },
    { kind: 'paragraph', children: [{ kind: 'text', text: 'one two' }] },
    { kind: 'list', ordered: false, items: [[{ kind: 'text', text: 'a a2' }], [{ kind: 'text', text: 'b' }]] },
    {
      kind: 'table',
      header: [[{ kind: 'text', text: 'x' }], [{ kind: 'text', text: 'y' }]],
      rows: [[[{ kind: 'text', text: '1' }], [{ kind: 'text', text: '2' }]]],
    },
    { kind: 'code', text: 'echo <b>' },
  ]);
});

test('every rule doc parses into its What / Why / Thresholds / Remedy sections', () => {
  const dir = path.resolve(import.meta.dirname, '../../../docs/findings');
  const docs = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md' && f !== 'latency-explained.md' && f !== 'fix-effect.md');
  expect(docs.length).toBeGreaterThan(10);
  for (const file of docs) {
    const titles = sectionsOf(parseMarkdown(fs.readFileSync(path.join(dir, file), 'utf8'))).map((s) => s.title);
    expect(titles, file).toEqual(expect.arrayContaining(['What it means', 'Remedy']));
  }
});

test('finding text gets code spans and nothing else: a link or emphasis quoted from an agent stays text', () => {
  expect(parseCodeSpans('run `taskset -c 0-3 <pid>` for [x](https://evil.example) **now**')).toEqual([
    { kind: 'text', text: 'run ' },
    { kind: 'code', text: 'taskset -c 0-3 <pid>' },
    { kind: 'text', text: ' for [x](https://evil.example) **now**' },
  ]);
  expect(parseCodeSpans('a lone ` backtick')).toEqual([{ kind: 'text', text: 'a lone ` backtick' }]);
});
