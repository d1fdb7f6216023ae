'use client';

import { useEffect, useState } from 'react';

/** Text typed into a box reaches the URL (and the API) once typing has paused for `delayMs`. */
export function useDebouncedCommit(value: string, commit: (value: string) => void, delayMs: number) {
  const [draft, setDraft] = useState(value);
  // A new value from outside (back button, a link) replaces the draft during render, not in an effect after it.
  const [committed, setCommitted] = useState(value);
  if (committed !== value) {
    setCommitted(value);
    setDraft(value);
  }
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => commit(draft), delayMs);
    return () => clearTimeout(timer);
  }, [draft, value, commit, delayMs]);
  return [draft, setDraft] as const;
}
