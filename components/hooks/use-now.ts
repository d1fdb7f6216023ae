'use client';

import { useEffect, useState } from 'react';

/** The clock for rendering: read on mount and every `everyMs`, so a render stays pure and what hangs on "now" moves on. */
export function useNow(everyMs: number): number {
  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNowMs(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return nowMs;
}
