'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CHANNEL_KINDS, type Channel, type ChannelKind } from '@/lib/protocol/alerts';
import { SEVERITIES, type Severity } from '@/lib/protocol/findings';
import { formatCount } from '../format';
import { useAccess } from '../hooks/use-session-query';
import { useChannelsQuery } from '../hooks/use-alert-config-queries';
import { sendJson } from '../send-json';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { matcherText } from './silence-match';

function useChannelMutation<T>(fn: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['alert-channels'] }) });
}

const SECRET_LABEL: Record<ChannelKind, string> = { webhook: 'Signing secret (16+ characters)', slack: '', alertmanager: 'Bearer token (optional)' };

function NewChannelForm() {
  const [kind, setKind] = useState<ChannelKind>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [minSeverity, setMinSeverity] = useState<Severity>('warning');
  const create = useChannelMutation((body: object) => sendJson('/api/v1/alerts/channels', { method: 'POST', body: JSON.stringify(body) }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const common = { name: name.trim(), minSeverity };
    const body =
      kind === 'slack'
        ? { kind, webhookUrl: url.trim(), ...common }
        : kind === 'webhook'
          ? { kind, url: url.trim(), secret, ...common }
          : { kind, url: url.trim(), ...(secret ? { bearerToken: secret } : {}), ...common };
    create.mutate(body);
  };
  return (
    <form className="filters" aria-label="New channel" onSubmit={submit} autoComplete="off">
      <label className="field">
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as ChannelKind)}>
          {CHANNEL_KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <label className="field">
        Name
        <input type="text" required value={name} onChange={(e) => setName(e.target.value)} placeholder="oncall" />
      </label>
      <label className="field">
        {kind === 'slack' ? 'Incoming-webhook URL (kept secret)' : kind === 'alertmanager' ? 'Alertmanager base URL' : 'Receiver URL'}
        <input type={kind === 'slack' ? 'password' : 'text'} required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" />
      </label>
      {kind !== 'slack' && (
        <label className="field">
          {SECRET_LABEL[kind]}
          <input type="password" required={kind === 'webhook'} minLength={kind === 'webhook' ? 16 : undefined} value={secret} onChange={(e) => setSecret(e.target.value)} />
        </label>
      )}
      <label className="field">
        At least
        <select value={minSeverity} onChange={(e) => setMinSeverity(e.target.value as Severity)}>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <button type="submit" className="button" disabled={create.isPending}>
        Add channel
      </button>
      {create.error && (
        <span className="error" role="alert">
          {create.error.message}
        </span>
      )}
    </form>
  );
}

function ChannelRow({ channel }: { channel: Channel }) {
  const toggle = useChannelMutation((enabled: boolean) =>
    sendJson(`/api/v1/alerts/channels/${channel.id}`, { method: 'PATCH', body: JSON.stringify({ enabled }) }),
  );
  const remove = useChannelMutation(() => sendJson(`/api/v1/alerts/channels/${channel.id}`, { method: 'DELETE' }));
  const error = toggle.error ?? remove.error;
  return (
    <tr data-channel={channel.name}>
      <th scope="row">{channel.name}</th>
      <td>{channel.kind}</td>
      <td className="subject">{channel.url ?? <span className="muted">(secret)</span>}</td>
      <td>{channel.secretPrefix ? <code>{channel.secretPrefix}…</code> : <span className="muted">—</span>}</td>
      <td>
        {channel.minSeverity}
        {channel.matchers.length > 0 && (
          <span className="matchers">
            {channel.matchers.map((m, i) => (
              <code key={i}>{matcherText(m)}</code>
            ))}
          </span>
        )}
      </td>
      <td className="num">
        {formatCount(channel.deliveriesTotal)} / <span className={channel.failuresTotal ? 'error' : undefined}>{formatCount(channel.failuresTotal)}</span>
      </td>
      <td>
        <span className="inline-form">
          <button type="button" className="button" disabled={toggle.isPending} onClick={() => toggle.mutate(!channel.enabled)}>
            {channel.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" className="button danger" disabled={remove.isPending} onClick={() => remove.mutate(undefined)}>
            Delete
          </button>
          {error && <span className="error">{error.message}</span>}
        </span>
      </td>
    </tr>
  );
}

/** Where notifications go: signed webhooks, Slack, Alertmanager. Secrets are never sent back, only their first characters. */
export function ChannelsPanel() {
  const { canWrite } = useAccess();
  const channels = useChannelsQuery();
  if (!canWrite)
    return (
      <EmptyState title="Channels need the editor role.">
        <p className="muted">Their URLs and secrets are the operator’s: editors and admins see and change them.</p>
      </EmptyState>
    );
  return (
    <section aria-label="Channels">
      {channels.isPending ? (
        <LoadingState label="Loading channels…" />
      ) : channels.error && !channels.data ? (
        <ErrorState what="the channels" error={channels.error} onRetry={() => void channels.refetch()} />
      ) : channels.data!.channels.length === 0 ? (
        <EmptyState title="No channels: alerts show here but notify no one.">
          <p className="muted">Add a webhook, Slack or Alertmanager channel below.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Channels">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">URL</th>
                <th scope="col">Secret</th>
                <th scope="col">Sends</th>
                <th scope="col" className="num">
                  Delivered / failed
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {channels.data!.channels.map((c) => (
                <ChannelRow key={c.id} channel={c} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>New channel</h2>
      <NewChannelForm />
    </section>
  );
}
