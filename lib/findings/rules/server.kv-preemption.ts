import { defineHostRule, type ServerWindow } from '../types';
import { exceeds } from '../thresholds';
import { fmt, fmtPct, minutes, windowOf } from '../format';

/** Preempting in at least this share of the window's scrapes: steady, not one burst. */
function steady(s: ServerWindow, share: number): boolean {
  return s.preemptionSamples > 0 && s.preemptingSamples >= share * s.preemptionSamples;
}

export const kvPreemption = defineHostRule({
  id: 'server.kv-preemption',
  title: 'LLM engine preempting for want of KV cache',
  category: 'latency',
  severities: ['warning'],
  defaults: {
    warningPerMin: { value: 5, unit: '/min', description: 'preempted (vLLM) or retracted (SGLang) requests per minute, on average over the window, above which it warns' },
    clearPerMin: { value: 1, unit: '/min', description: 'an open finding resolves once the average falls below this' },
    steadyShare: { value: 0.5, unit: 'share', description: 'the share of the window\'s scrapes that must have preempted: a single burst is not steady' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    return window.servers.flatMap((s) => {
      const rate = s.preemptionsPerMin?.avg ?? null;
      if (!exceeds(rate, t.warningPerMin, t.clearPerMin, ctx.isOpen(s.name))) return [];
      if (!ctx.isOpen(s.name) && !steady(s, t.steadyShare)) return [];
      const cache = s.kvCachePct ? `, its KV cache at ${fmtPct(s.kvCachePct.avg)} on average (peak ${fmtPct(s.kvCachePct.max)})` : '';
      return [{
        subject: s.name,
        severity: 'warning' as const,
        value: rate,
        message:
          `${s.name} preempted ${fmt(rate!)} requests/min over ${minutes(window.toMs - window.fromMs)} (peak ${fmt(s.preemptionsPerMin!.max)}/min, ` +
          `in ${s.preemptingSamples} of ${s.preemptionSamples} scrapes)${cache}: it runs out of KV cache and computes evicted requests again.`,
        remedy:
          'Each preempted request loses its KV cache and is recomputed later, which adds to its time to first token and to its end. ' +
          'Give the cache more memory (vLLM `--gpu-memory-utilization`, SGLang `--mem-fraction-static`), admit fewer sequences ' +
          'at once (vLLM `--max-num-seqs`, SGLang `--max-running-requests`) or shorter ones (`--max-model-len`), or add a replica ' +
          'and spread the load.',
        evidence: {
          values: [
            { label: 'preemptions (window average)', value: rate, unit: '/min' },
            { label: 'preemptions (window peak)', value: s.preemptionsPerMin!.max, unit: '/min' },
            { label: 'scrapes that preempted', value: `${s.preemptingSamples} of ${s.preemptionSamples}` },
            ...(s.kvCachePct ? [
              { label: 'KV cache in use (window average)', value: s.kvCachePct.avg, unit: '%' },
              { label: 'KV cache in use (window peak)', value: s.kvCachePct.max, unit: '%' },
            ] : []),
          ],
          window: windowOf(window),
          series: [{ metric: 'server_preemptions', key: s.name }, { metric: 'server_kv_cache', key: s.name }],
        },
      }];
    });
  },
});
