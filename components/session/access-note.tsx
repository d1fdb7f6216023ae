'use client';

import { useSessionQuery } from '../hooks/use-session-query';

/** Says, on pages with write actions, why they are hidden: a viewer sees the page but cannot change it. */
export function AccessNote({ needs }: { needs: string }) {
  const session = useSessionQuery();
  const principal = session.data?.principal;
  if (!principal || principal.role !== 'viewer') return null;
  return (
    <p className="panel muted" role="status" data-testid="access-note">
      You are signed in as {principal.name}, a viewer: {needs} need the editor role. Ask an admin.
    </p>
  );
}
