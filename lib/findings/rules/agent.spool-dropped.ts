import { defineHostRule } from '../types';
import { minutes, plural, windowOf } from '../format';

export const spoolDropped = defineHostRule({
  id: 'agent.spool-dropped',
  title: 'Agent spool full: reports lost',
  category: 'agent',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts) {
    const window = facts.window!;
    const dropped = window.droppedReports;
    if (!(dropped > 0)) return [];
    return [
      {
        severity: 'warning',
        value: dropped,
        message:
          `The agent's spool was full and dropped its ${plural(dropped, 'oldest unsent report', 'oldest unsent reports')} ` +
          `within the last ${minutes(window.toMs - window.fromMs)}: the samples and latencies in them are lost.`,
        remedy:
          'The spool only fills while delivery fails, so fix that first: `journalctl -u inferwatch-agent` shows why ' +
          '("delivery failed; will retry": the server is unreachable or answers 5xx/429; "host token rejected — re-enroll": ' +
          'delete /var/lib/inferwatch-agent/host-token.json and restart with a valid key in /etc/inferwatch/enroll-key). ' +
          'To ride out longer outages, raise the bound: INFERWATCH_SPOOL_MAX_MB=500 in /etc/inferwatch/agent.env (or ' +
          '--spool-max-mb 500; default 100), check the room with `df -h /var/lib/inferwatch-agent`, and ' +
          '`systemctl restart inferwatch-agent`. The agent logs each drop as "spool full: dropped the oldest unsent reports".',
        evidence: {
          values: [{ label: 'reports dropped in the window', value: dropped }],
          window: windowOf(window),
        },
      },
    ];
  },
});
