import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, test } from 'vitest';
import { CodeSpans } from '@/components/code-spans';

test('finding text gets code spans and nothing else: a link, emphasis or markup quoted from an agent stays text', () => {
  const html = (text: string) => renderToStaticMarkup(createElement(CodeSpans, { text }));
  expect(html('run `taskset -c 0-3 <pid>` for [x](https://evil.example) **now** <b>')).toBe(
    'run <code>taskset -c 0-3 &lt;pid&gt;</code> for [x](https://evil.example) **now** &lt;b&gt;',
  );
  expect(html('a lone ` backtick')).toBe('a lone ` backtick');
});
