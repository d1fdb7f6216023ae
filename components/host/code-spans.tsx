import { Fragment } from 'react';

/**
 * Text with its `code` spans shown as code and nothing else interpreted, as the findings page shows messages and
 * remedies; a few lines here rather than its Markdown module, which this page's script budget has no room for.
 */
export function CodeSpans({ text }: { text: string }) {
  return (
    <>
      {text.split(/(`[^`]+`)/).map((part, i) =>
        part.length > 2 && part.startsWith('`') && part.endsWith('`') ? <code key={i}>{part.slice(1, -1)}</code> : <Fragment key={i}>{part}</Fragment>,
      )}
    </>
  );
}
