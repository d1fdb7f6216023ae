import { describe, expect, test } from 'vitest';
import type { ServerWindow } from '../types';
import { cleanWindow, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { kvPreemption } from './server.kv-preemption';

const t = defaultsOf(kvPreemption.defaults);
const server = (avg: number | null, patch: Partial<ServerWindow> = {}): ServerWindow => ({
  name: 'vllm',
  samples: 30,
  preemptionSamples: 30,
  preemptingSamples: 24,
  preemptionsPerMin: avg === null ? null : { avg, max: avg * 2 },
  kvCachePct: { avg: 97.6, max: 99.9 },
  ...patch,
});
const judge = (servers: ServerWindow[], open: string[] = []) =>
  kvPreemption.evaluate(hostFacts({ window: cleanWindow({ servers }) }), t, ruleContext(open));

describe('server.kv-preemption', () => {
  test('a clean host and a server that publishes no preemptions raise nothing', () => {
    expect(kvPreemption.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
    expect(judge([server(null, { preemptionSamples: 0, preemptingSamples: 0 })])).toEqual([]);
  });

  test('steady preemption warns with the server as subject, its KV cache, the rate and the remedy', () => {
    const [v] = judge([server(40)]);
    expect(v).toMatchObject({ subject: 'vllm', severity: 'warning', value: 40 });
    expect(v!.message).toBe(
      'vllm preempted 40 requests/min over 5 min (peak 80/min, in 24 of 30 scrapes), its KV cache at 97.6 % on average (peak 99.9 %): ' +
        'it runs out of KV cache and computes evicted requests again.',
    );
    expect(v!.remedy).toContain('--gpu-memory-utilization');
    expect(v!.remedy).toContain('--max-num-seqs');
    expect(v!.evidence.series).toEqual([{ metric: 'server_preemptions', key: 'vllm' }, { metric: 'server_kv_cache', key: 'vllm' }]);
  });

  test('a burst in a few scrapes is not steady, however high its average', () => {
    expect(judge([server(40, { preemptingSamples: 3 })])).toEqual([]);
    expect(judge([server(40, { preemptingSamples: 15 })])).toHaveLength(1);
  });

  test('exactly at the threshold does not raise; without a KV cache gauge it still warns, without naming one', () => {
    expect(judge([server(5)])).toEqual([]);
    const [v] = judge([server(5.1, { kvCachePct: null })]);
    expect(v!.message).toMatch(/in 24 of 30 scrapes\): it runs out/);
  });

  test('hysteresis: open, it stays open above 1/min (even in bursts) and clears below', () => {
    expect(judge([server(3)])).toEqual([]);
    expect(judge([server(3, { preemptingSamples: 2 })], ['vllm'])).toHaveLength(1);
    expect(judge([server(0.9)], ['vllm'])).toEqual([]);
  });

  test('each server is judged on its own', () => {
    const out = judge([server(40), server(0, { name: 'sglang', preemptingSamples: 0 })]);
    expect(out.map((v) => v.subject)).toEqual(['vllm']);
  });
});
