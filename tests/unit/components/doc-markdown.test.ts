import fs from 'node:fs';
import path from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import DocMarkdown from '@/components/findings/doc-markdown';
import { docSections } from '@/components/findings/doc-sections';

const RULE_IDS = new Set(['cpu.steal-high', 'latency.p99-regression']);
const render = (markdown: string, headingOffset = 0) => renderToStaticMarkup(createElement(DocMarkdown, { markdown, ruleIds: RULE_IDS, headingOffset }));

describe('a findings doc rendered', () => {
  test('a list nested in a list item renders inside that item', () => {
    const html = render(['- on a VM:', '  - KVM: `-cpu host`', '  - Proxmox: CPU type `host`', '- on bare metal, nothing'].join('\n'));
    expect(html).toBe(
      '<div class="markdown"><ul>\n<li>on a VM:\n<ul>\n<li>KVM: <code>-cpu host</code></li>\n<li>Proxmox: CPU type <code>host</code></li>\n</ul>\n</li>\n<li>on bare metal, nothing</li>\n</ul></div>',
    );
  });

  test('the avx2 doc’s remedy nests the hypervisors’ settings under its first item', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/findings/cpu.avx2-missing.md'), 'utf8');
    const remedy = docSections(doc).find((s) => s.title === 'Remedy')!;
    const html = render(remedy.markdown);
    expect(html.match(/<li>On a VM, give the guest the host CPU model.*?<ul>(.*?)<\/ul>/s)?.[1]?.match(/<li>/g)).toHaveLength(5);
  });

  test('a GitHub table keeps its header, cells and code spans, in the dashboard’s table style', () => {
    const html = render(['| name | default |', '|---|---|', '| `ratio` | 1.5 |'].join('\n'));
    expect(html).toBe(
      '<div class="markdown"><div class="table-wrap"><table class="data"><thead><tr><th>name</th><th>default</th></tr></thead><tbody><tr><td><code>ratio</code></td><td>1.5</td></tr></tbody></table></div></div>',
    );
  });

  test('links to another rule’s doc open that rule on the findings page; latency-explained.md opens its doc there', () => {
    const html = render('see [steal](cpu.steal-high.md) and [latency explained](./latency-explained.md#the-method)');
    expect(html).toContain('<a href="/findings?rule=cpu.steal-high#rule-cpu-steal-high">steal</a>');
    expect(html).toContain('<a href="/findings?doc=latency-explained#doc-latency-explained">latency explained</a>');
  });

  test('an external link opens without a referrer; a link anywhere else is left as its text', () => {
    expect(render('[article](https://example.com/x)')).toBe('<div class="markdown"><p><a href="https://example.com/x" rel="noreferrer" target="_blank">article</a></p></div>');
    expect(render('[ops](../operations.md) [x](javascript:alert(1)) [y](no-such-rule.md)')).toBe('<div class="markdown"><p>ops x y</p></div>');
  });

  test('raw HTML in a doc is shown as text, never as markup', () => {
    const html = render('a <img src=x onerror=alert(1)> b\n\n<script>alert(1)</script>');
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('headings move down by the offset the panel asks for, no deeper than h6', () => {
    expect(render('# a\n\n### b', 1)).toBe('<div class="markdown"><h2>a</h2>\n<h4>b</h4></div>');
    expect(render('### b', 3)).toBe('<div class="markdown"><h6>b</h6></div>');
  });

  test('a fenced block is a command box with its text untouched', () => {
    expect(render('```sh\necho <b> # not a heading\n```')).toBe('<div class="markdown"><pre class="command"><code class="language-sh">echo &lt;b&gt; # not a heading\n</code></pre></div>');
  });
});
