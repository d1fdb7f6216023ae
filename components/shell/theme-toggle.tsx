'use client';

import { useTheme } from 'next-themes';
import { useIsClient } from '../hooks/use-is-client';

const NEXT_THEME = { dark: 'light', light: 'dark' } as const;

export function ThemeToggle() {
  const { resolvedTheme, setTheme } = useTheme();
  const isClient = useIsClient();
  // The stored theme is unknown on the server; render a neutral button until hydration.
  const current = isClient && resolvedTheme === 'light' ? 'light' : 'dark';
  const next = NEXT_THEME[current];
  return (
    <button
      type="button"
      className="theme-toggle"
      onClick={() => setTheme(next)}
      aria-label={isClient ? `Switch to ${next} theme` : 'Switch theme'}
      title={isClient ? `Switch to ${next} theme` : 'Switch theme'}
    >
      <span aria-hidden="true">{current === 'light' ? '☾' : '☀'}</span>
    </button>
  );
}
