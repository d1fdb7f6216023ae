import type { EffectVerdict, FindingEffect } from '@/lib/protocol/findings';
import { CodeSpans } from '../code-spans';
import { LocalTime } from '../time/local-time';

const VERDICT_TEXT: Record<EffectVerdict, string> = {
  improved: 'improved',
  worse: 'worse',
  'no-change': 'no change seen',
  'not-enough-requests': 'not enough requests to compare',
};

const ms = (value: number | null) => (value === null ? '—' : `${value >= 100 ? Math.round(value) : value.toFixed(value >= 10 ? 1 : 2)} ms`);
const gauge = (value: number | null, unit: string) => (value === null ? '—' : `${Number.isInteger(value) ? value : value.toFixed(Math.abs(value) >= 10 ? 1 : 2)}${unit ? ` ${unit}` : ''}`);

/** What resolving a finding bought: the change that did it and p99 and the rule's own series, the hour before against the hour after. */
export function FixEffect({ effect }: { effect: FindingEffect }) {
  if (effect.status === 'measuring') {
    return (
      <p className="fix-effect muted" data-testid="fix-effect" data-status="measuring">
        Resolved <LocalTime iso={effect.resolvedAt} />: measuring what it bought until <LocalTime iso={effect.measureAfter} />.
      </p>
    );
  }
  return (
    <div className="fix-effect" data-testid="fix-effect" data-status="measured">
      <p>
        <strong>What the fix bought: </strong>
        <CodeSpans text={effect.summary} />
      </p>
      {(effect.latency.length > 0 || effect.gauges.length > 0) && (
        <table className="fix-effect-table">
          <thead>
            <tr>
              <th scope="col">series</th>
              <th scope="col">before</th>
              <th scope="col">after</th>
              <th scope="col">requests before / after</th>
              <th scope="col">verdict</th>
            </tr>
          </thead>
          <tbody>
            {effect.latency.map((l) => (
              <tr key={`latency-${l.name}`} data-verdict={l.verdict}>
                <td className="agent-text">p99 {l.name}</td>
                <td>{ms(l.before.p99Ms)}</td>
                <td>{ms(l.after.p99Ms)}</td>
                <td>
                  {l.before.requests.toLocaleString()} / {l.after.requests.toLocaleString()}
                </td>
                <td>{VERDICT_TEXT[l.verdict]}</td>
              </tr>
            ))}
            {effect.gauges.map((g) => (
              <tr key={`gauge-${g.metric}-${g.key ?? ''}`}>
                <td className="agent-text">
                  {g.metric}
                  {g.key ? ` ${g.key}` : ''}
                </td>
                <td>{gauge(g.before, g.unit)}</td>
                <td>{gauge(g.after, g.unit)}</td>
                <td />
                <td />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {effect.before && effect.after && (
        <p className="muted">
          Before: <LocalTime iso={effect.before.from} /> – <LocalTime iso={effect.before.to} /> · after: <LocalTime iso={effect.after.from} /> –{' '}
          <LocalTime iso={effect.after.to} />
        </p>
      )}
    </div>
  );
}
