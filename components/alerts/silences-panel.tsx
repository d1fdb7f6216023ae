'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Silence } from '@/lib/protocol/alerts';
import { useAccess } from '../hooks/use-session-query';
import { useSilencesQuery } from '../hooks/use-alert-config-queries';
import { sendJson } from '../send-json';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { SilenceForm } from './silence-form';
import { matcherText } from './silence-match';

function ExpireButton({ silence }: { silence: Silence }) {
  const queryClient = useQueryClient();
  const expire = useMutation({
    mutationFn: () => sendJson<Silence>(`/api/v1/alerts/silences/${silence.id}`, { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['alert-silences'] }),
  });
  return (
    <>
      <button type="button" className="button" disabled={expire.isPending} onClick={() => expire.mutate()}>
        Expire now
      </button>
      {expire.error && <span className="error">{expire.error.message}</span>}
    </>
  );
}

/** Silences hold back notifications of the alerts they match (the alerts still show here); expired ones stay as history. */
export function SilencesPanel() {
  const silences = useSilencesQuery();
  const { canWrite } = useAccess();
  return (
    <section aria-label="Silences">
      {canWrite ? <SilenceForm initial={[]} /> : <p className="muted">Creating or expiring silences needs the editor role.</p>}
      {silences.isPending ? (
        <LoadingState label="Loading silences…" />
      ) : silences.error && !silences.data ? (
        <ErrorState what="the silences" error={silences.error} onRetry={() => void silences.refetch()} />
      ) : silences.data!.silences.length === 0 ? (
        <EmptyState title="No silences.">
          <p className="muted">Silence an alert from its ‘Silence…’ button, or with label matchers above.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Silences">
            <thead>
              <tr>
                <th scope="col">State</th>
                <th scope="col">Matchers</th>
                <th scope="col">From</th>
                <th scope="col">Until</th>
                <th scope="col">Why</th>
                <th scope="col">Who</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {silences.data!.silences.map((s) => (
                <tr key={s.id} data-silence-id={s.id} data-silence-state={s.state}>
                  <td>
                    <span className="badge">{s.state}</span>
                  </td>
                  <td>
                    <span className="matchers">
                      {s.matchers.map((m, i) => (
                        <code key={i}>{matcherText(m)}</code>
                      ))}
                    </span>
                  </td>
                  <td>
                    <LocalTime iso={s.startsAt} />
                  </td>
                  <td>
                    <LocalTime iso={s.endsAt} />
                  </td>
                  <td>{s.comment}</td>
                  <td>{s.createdBy}</td>
                  <td>{canWrite && s.state !== 'expired' && <ExpireButton silence={s} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
