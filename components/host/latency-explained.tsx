'use client';

import type { LatencyExplanation } from '@/lib/protocol/findings';
import { formatMs } from '../format';
import { useHostLatencySeriesQuery } from '../hooks/use-host-latency-series-query';
import { useLatencyExplainedQuery } from '../hooks/use-latency-explained-query';
import { LocalTime } from '../time/local-time';
import { explainRangeOf } from './time-range';
import { useHostView } from './use-host-view';

/** "2 h of 24": how much of its range the baseline had requests in, which is how far the verdict can be trusted. */
const baselineHad = ({ baseline }: LatencyExplanation) => `${baseline.hours} h of ${baseline.ofHours}`;

function Regression({ data }: { data: LatencyExplanation }) {
  return (
    <div className={`panel latency-explained ${data.verdict === 'regressed' || data.verdict === 'saturated' || data.verdict === 'kv-pressure' ? 'regressed' : ''}`} data-verdict={data.verdict}>
      <p className="state-title">
        p99 of <span className="series-name">{data.name}</span>: {formatMs(data.baseline.p99Ms)} → {formatMs(data.current.p99Ms)}
        {data.ratio !== null && ` (×${data.ratio.toFixed(1)})`}
      </p>
      <p>{data.summary}</p>
      {data.region && (
        <p className="muted">
          Rest of {data.region.region} ({data.region.otherHosts} other hosts): {data.region.regressed ? 'regressed too — look at the region, not this host.' : 'did not regress.'}
        </p>
      )}
      {data.causes.length > 0 ? (
        <ol className="causes">
          {data.causes.map((cause, i) => (
            <li key={i} data-cause={cause.kind}>
              <span className="cause-summary">{cause.summary}</span>{' '}
              <span className="muted">
                strength {(cause.strength * 100).toFixed(0)} %{cause.correlation !== null && `, moves with p99 ρ = ${cause.correlation.toFixed(2)}`}
              </span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted">Nothing this host measures changed with it: look at the model, its inputs or the service itself.</p>
      )}
      <p className="muted" data-baseline-hours={data.baseline.hours}>
        Against the {data.baseline.ofHours} h before, <LocalTime iso={data.baselineRange.from} /> – <LocalTime iso={data.baselineRange.to} />
        {' '}(baseline: {baselineHad(data)} with requests).
      </p>
    </div>
  );
}

/** When p99 regressed over the range: by how much, whether the region did too, and what changed with it. */
export function LatencyExplained({ hostId }: { hostId: number }) {
  const { state, range, live } = useHostView();
  const series = useHostLatencySeriesQuery(hostId, range, live);
  const name = state.latency[0] ?? series.data?.series[0]?.name ?? null;
  const explained = useLatencyExplainedQuery(hostId, name, explainRangeOf(range), live);
  if (name === null || !explained.data) return null;
  const data = explained.data;
  return (
    <section aria-labelledby="latency-explained-heading">
      <h2 id="latency-explained-heading">Latency explained</h2>
      {data.verdict === 'regressed' || data.verdict === 'saturated' || data.verdict === 'kv-pressure' || data.verdict === 'region-wide' || data.verdict === 'recurring-spikes' ? (
        <Regression data={data} />
      ) : (
        <p className="muted" data-verdict={data.verdict} data-baseline-hours={data.baseline.hours}>
          {data.verdict === 'no-regression' ? (
            <>
              p99 of <span className="series-name">{data.name}</span>: {formatMs(data.current.p99Ms)}, in line with its baseline of{' '}
              {formatMs(data.baseline.p99Ms)} (baseline: {baselineHad(data)}) — nothing to explain.
            </>
          ) : (
            data.summary
          )}
        </p>
      )}
    </section>
  );
}
