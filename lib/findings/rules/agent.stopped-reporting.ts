import { defineHostRule, type HostFacts } from '../types';
import { fmt } from '../format';
import { formatElapsed } from '../../protocol/duration';
import { MINUTE_MS } from '../../protocol/time';

/** The agent's default --interval: what a missed report counts in when the host's own interval is unknown. */
const DEFAULT_INTERVAL_MS = 10_000;

/**
 * The agent's configured interval. An older agent does not send it; its measured intervals then stand in, the longest
 * of the window's: its first report after a start covers only a warm-up of a fraction of a second.
 */
function reportIntervalMs(facts: HostFacts): number {
  return facts.reportEveryMs ?? facts.window?.longestIntervalMs ?? facts.lastIntervalMs ?? DEFAULT_INTERVAL_MS;
}

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export const stoppedReporting = defineHostRule({
  id: 'agent.stopped-reporting',
  title: 'Agent stopped reporting',
  category: 'agent',
  severities: ['warning', 'critical'],
  defaults: {
    missedIntervals: { value: 3, unit: 'intervals', description: 'reports missed in a row (at the agent\'s configured interval, 10 s when unknown) that raise a warning' },
    criticalAfterMin: { value: 15, unit: 'min', description: 'silence that makes it critical (never before the warning threshold)' },
  },
  openAfterMs: 0,
  needs: 'none',
  evaluate(facts, t) {
    // A host that never reported has nothing to have stopped: enrolling it is not yet running it.
    if (facts.lastReportMs === null) return [];
    const intervalMs = reportIntervalMs(facts);
    const ageMs = facts.nowMs - facts.lastReportMs;
    const warnAfterMs = t.missedIntervals * intervalMs;
    if (!(ageMs > warnAfterMs)) return [];
    const severity = ageMs > Math.max(t.criticalAfterMin * MINUTE_MS, warnAfterMs) ? 'critical' : 'warning';
    const missed = Math.floor(ageMs / intervalMs);
    // Silence is judged by arrival (the server's clock, which a wrong host clock cannot fake); a report that arrived
    // well after it was made (a spool sent before the agent died, or a clock behind) would otherwise hide where its data ends.
    const lateMs = facts.lastSampleMs === null ? 0 : facts.lastReportMs - facts.lastSampleMs;
    const late = lateMs > intervalMs;
    const lateNote = late
      ? ` Its samples end at ${utc(facts.lastSampleMs!)} by its own clock: that report arrived ${formatElapsed(lateMs)} after it ` +
        'was made, from its spool, or the host\'s clock is behind.'
      : '';
    return [
      {
        severity,
        value: ageMs / 1000,
        message:
          `No report for ${formatElapsed(ageMs)} (last received ${utc(facts.lastReportMs)}): ${missed} reports missed at its ` +
          `${fmt(intervalMs / 1000)} s interval.${lateNote} Its other findings stay as they were when it went silent.`,
        remedy:
          'On the host: `systemctl status inferwatch-agent` (stopped with exit status 2: a bad option in ' +
          '/etc/inferwatch/agent.env, which the unit does not restart from), then `journalctl -u inferwatch-agent -n 100`. ' +
          '"delivery failed; will retry": the server is unreachable — test the path with `curl -sS <server>/api/health`, ' +
          '<server> being INFERWATCH_SERVER in /etc/inferwatch/agent.env (DNS, firewall, proxy, TLS). "host token rejected ' +
          '— re-enroll": delete /var/lib/inferwatch-agent/host-token.json and restart with a valid key in ' +
          '/etc/inferwatch/enroll-key. Meanwhile reports wait in /var/lib/inferwatch-agent/spool/ (`ls ' +
          '/var/lib/inferwatch-agent/spool/r-*.json | wc -l`) and go out oldest first once delivery works; beyond ' +
          '--spool-max-mb the oldest are dropped. No answer from the machine at all: the provider\'s console.',
        evidence: {
          values: [
            { label: 'last report', value: new Date(facts.lastReportMs).toISOString() },
            ...(late ? [{ label: 'newest sample', value: new Date(facts.lastSampleMs!).toISOString() }] : []),
            { label: 'silent for', value: Math.round(ageMs / 1000), unit: 's' },
            { label: 'report interval', value: intervalMs / 1000, unit: 's' },
            { label: 'reports missed', value: missed },
          ],
        },
      },
    ];
  },
});
