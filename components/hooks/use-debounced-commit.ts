'use client';

import { useEffect, useState } from 'react';

/** Text typed into a box reaches the URL (and the API) once typing has paused for `delayMs`. */
export function useDebouncedCommit(value: string, commit: (value: string) => void, delayMs: number) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => commit(draft), delayMs);
    return () => clearTimeout(timer);
  }, [draft, value, commit, delayMs]);
  return [draft, setDraft] as const;
}
