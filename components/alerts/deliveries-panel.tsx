'use client';

import { DELIVERY_STATUSES, type DeliveryStatus } from '@/lib/protocol/alerts';
import { useAccess } from '../hooks/use-session-query';
import { useChannelsQuery, useDeliveriesQuery } from '../hooks/use-alert-config-queries';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { useAlertsUrlState } from './use-alerts-url-state';

/** The delivery log, newest first: every notification's attempts, status and last error. */
export function DeliveriesPanel() {
  const { canWrite } = useAccess();
  const { state, setState } = useAlertsUrlState();
  const channels = useChannelsQuery();
  const deliveries = useDeliveriesQuery({ channel: state.channel ?? undefined, status: state.status ?? undefined });
  if (!canWrite)
    return (
      <EmptyState title="The delivery log needs the editor role.">
        <p className="muted">Ask an admin for it, or for an API token that has it.</p>
      </EmptyState>
    );
  return (
    <section aria-label="Deliveries">
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          Channel
          <select value={state.channel ?? ''} onChange={(e) => setState({ channel: e.target.value ? Number(e.target.value) : null })}>
            <option value="">every channel</option>
            {(channels.data?.channels ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Status
          <select value={state.status ?? ''} onChange={(e) => setState({ status: (e.target.value || null) as DeliveryStatus | null })}>
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      {deliveries.isPending ? (
        <LoadingState label="Loading deliveries…" />
      ) : deliveries.error && !deliveries.data ? (
        <ErrorState what="the delivery log" error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data!.deliveries.length === 0 ? (
        <EmptyState title="No deliveries match.">
          <p className="muted">A notification is queued here when an alert fires or resolves and a channel matches it.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Deliveries">
            <thead>
              <tr>
                <th scope="col">Queued</th>
                <th scope="col">Channel</th>
                <th scope="col">Event</th>
                <th scope="col">Alert</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col">Delivered</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data!.deliveries.map((d) => (
                <tr key={d.id} data-delivery-status={d.status}>
                  <td>
                    <LocalTime iso={d.createdAt} />
                  </td>
                  <td>{d.channelName}</td>
                  <td>{d.event}</td>
                  <td>{d.alertId ?? '—'}</td>
                  <td>
                    <span className={`badge delivery-${d.status}`}>{d.status}</span>
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td className="subject">
                    {d.lastStatusCode ?? ''} {d.lastError ?? ''}
                    {d.status !== 'delivered' && d.status !== 'failed' && (
                      <>
                        {' '}
                        next try <LocalTime iso={d.nextAttemptAt} />
                      </>
                    )}
                  </td>
                  <td>{d.deliveredAt ? <LocalTime iso={d.deliveredAt} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
