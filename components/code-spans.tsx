import { Fragment } from 'react';

/**
 * Text with its `code` spans shown as code and nothing else interpreted: finding messages and remedies quote what
 * agents send (process names, paths), so nothing in them may become a link or other markup.
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
