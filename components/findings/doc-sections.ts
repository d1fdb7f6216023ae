export interface DocSection {
  /** The `#` or `##` heading's text; '' for what comes before the first. */
  title: string;
  markdown: string;
}

/**
 * A doc cut at its `#` and `##` headings (not inside code fences), each section's body still Markdown: the rule panel
 * shows a few of a rule doc's sections under titles of its own and renders each of them alone.
 */
export function docSections(markdown: string): DocSection[] {
  const sections: DocSection[] = [];
  let current: { title: string; lines: string[] } = { title: '', lines: [] };
  let fence: string | null = null;
  const flush = () => {
    if (current.title || current.lines.some((l) => l.trim())) sections.push({ title: current.title, markdown: current.lines.join('\n') });
  };
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) fence = fence === null ? marker : null;
    const heading = fence === null && !marker ? /^ {0,3}#{1,2}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
    if (heading) {
      flush();
      current = { title: heading[1]!, lines: [] };
    } else current.lines.push(line);
  }
  flush();
  return sections;
}
