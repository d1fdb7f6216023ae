/**
 * The subset of Markdown the rule docs use, parsed into plain data that React renders as text: no HTML is ever
 * produced or passed through, so a doc (or anything quoted in it) cannot inject markup.
 */
export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong'; children: Inline[] }
  | { kind: 'em'; children: Inline[] }
  | { kind: 'link'; href: string | null; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: number; children: Inline[] }
  | { kind: 'paragraph'; children: Inline[] }
  | { kind: 'list'; ordered: boolean; items: Inline[][] }
  | { kind: 'table'; header: Inline[][]; rows: Inline[][][] }
  | { kind: 'code'; text: string };

/** Where a link may go: http(s) pages, and another rule's doc page as that rule on the findings page; else nowhere. */
export function safeHref(target: string): string | null {
  if (/^https?:\/\/[^\s]+$/i.test(target)) return target;
  const doc = /^(?:\.\/)?([a-z0-9]+(?:[.-][a-z0-9]+)*)\.md(?:#.*)?$/.exec(target);
  if (doc) return `/findings?rule=${encodeURIComponent(doc[1]!)}`;
  return null;
}

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    if (rest[0] === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i) {
        flush();
        out.push({ kind: 'code', text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if (rest.startsWith('**')) {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        flush();
        out.push({ kind: 'strong', children: parseInline(text.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if (rest[0] === '*' && rest[1] && rest[1] !== ' ' && rest[1] !== '*') {
      const end = text.indexOf('*', i + 1);
      if (end > i + 1 && text[end - 1] !== ' ') {
        flush();
        out.push({ kind: 'em', children: parseInline(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (rest[0] === '[') {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest);
      if (link) {
        flush();
        out.push({ kind: 'link', href: safeHref(link[2]!), children: parseInline(link[1]!) });
        i += link[0].length;
        continue;
      }
    }
    plain += rest[0];
    i += 1;
  }
  flush();
  return out;
}

/** `| a | `b|c` | d |` → ['a', '`b|c`', 'd']: pipes inside code spans do not split cells. */
export function splitTableRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cell = '';
  let inCode = false;
  for (const ch of inner) {
    if (ch === '`') inCode = !inCode;
    if (ch === '|' && !inCode) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

const LIST_ITEM = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

export function parseMarkdown(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (/^\s*```/.test(line)) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!);
      i++;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, children: parseInline(heading[2]!.trim()) });
      i++;
      continue;
    }
    if (line.trim().startsWith('|') && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]!)) {
      const header = splitTableRow(line).map(parseInline);
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && lines[i]!.trim().startsWith('|')) rows.push(splitTableRow(lines[i++]!).map(parseInline));
      blocks.push({ kind: 'table', header, rows });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i]!;
        const next = LIST_ITEM.exec(current);
        if (next && (next[2] !== undefined) === ordered) items.push(next[3]!);
        else if (current.trim() !== '' && /^\s+/.test(current) && items.length) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        i++;
      }
      blocks.push({ kind: 'list', ordered, items: items.map(parseInline) });
      continue;
    }
    const paragraph: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^(#{1,6})\s/.test(lines[i]!) &&
      !/^\s*```/.test(lines[i]!) &&
      !LIST_ITEM.test(lines[i]!) &&
      !(lines[i]!.trim().startsWith('|') && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]!))
    ) {
      paragraph.push(lines[i++]!.trim());
    }
    blocks.push({ kind: 'paragraph', children: parseInline(paragraph.join(' ')) });
  }
  return blocks;
}

/** The doc's sections by heading (`What it means`, `Remedy`, …), each with the blocks under it. */
export function sectionsOf(blocks: Block[]): { title: string; blocks: Block[] }[] {
  const sections: { title: string; blocks: Block[] }[] = [];
  for (const block of blocks) {
    if (block.kind === 'heading' && block.level <= 2) sections.push({ title: plainText(block.children), blocks: [] });
    else if (sections.length) sections.at(-1)!.blocks.push(block);
    else sections.push({ title: '', blocks: [block] });
  }
  return sections;
}

export function plainText(inline: Inline[]): string {
  return inline.map((node) => ('text' in node ? node.text : plainText(node.children))).join('');
}

/**
 * Only `code` spans: for finding messages and remedies, which quote what agents send (process names, paths), so
 * nothing in them may become a link or other markup, while the commands they give still read as code.
 */
export function parseCodeSpans(text: string): Inline[] {
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .filter((part) => part !== '')
    .map((part) => (part.length > 2 && part.startsWith('`') && part.endsWith('`') ? { kind: 'code', text: part.slice(1, -1) } : { kind: 'text', text: part }));
}
