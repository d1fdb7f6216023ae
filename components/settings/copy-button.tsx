'use client';

import { useState } from 'react';

/** Copies `text` to the clipboard and says so; where the clipboard is refused, says to select and copy by hand. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [result, setResult] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setResult('copied');
    } catch {
      setResult('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted">
        {result === 'copied' ? 'Copied.' : result === 'failed' ? 'The browser refused the clipboard: select the text and copy it.' : ''}
      </span>
    </span>
  );
}
