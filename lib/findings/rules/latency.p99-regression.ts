import type { FindingEvidence, LatencyCause, ThresholdOverride } from '../../protocol/findings';
import { explainRegression, isRegression } from '../latency/explain-regression';
import type { GaugeObservation, LatencySeriesFacts, RegionObservation } from '../latency/facts';
import { DEFAULT_METHOD, MAX_NAMED_CPUS, STEAL_CONCENTRATION, type ExplainMethod } from '../latency/method';
import { defineHostRule, type HostFacts } from '../types';

const CAUSES_IN_EVIDENCE = 3;

const REMEDIES: Record<LatencyCause['kind'] | 'none', (cause?: LatencyCause) => string> = {
  region: () => 'The whole region slowed down, not this host: look at what the region shares (the provider, the network, an upstream service).',
  steal:
    () => 'Another guest on the same physical host is taking CPU time this VM was promised (see cpu.steal-high): ask the provider to ' +
      'live-migrate the VM or for dedicated (pinned, not oversold) vCPUs, and move latency-critical replicas to a quieter host meanwhile.',
  iowait: () => 'Requests wait on the disk: find what else reads or writes it (`iostat -x 1`, `iotop -o`) and keep models and data on a local NVMe disk.',
  'disk-await': (c) =>
    `${c?.subject ?? 'The disk'} slowed down: find what else uses it (\`iostat -x 1 ${c?.subject ?? ''}\`, \`iotop -o\`), move the model ` +
    'and data paths to a local NVMe disk, or raise the volume\'s provisioned IOPS.',
  'disk-queue': (c) => `Requests queue on ${c?.subject ?? 'the disk'}: find what else uses it (\`iostat -x 1\`, \`iotop -o\`) or move the service's data to a faster disk.`,
  throttling: (c) =>
    `The cgroup ${c?.subject ?? ''} hits its CPU quota: raise it (\`docker update --cpus\`, \`cpu.max\`), or size the service's threads ` +
    'to fit it (OMP_NUM_THREADS and intra-op threads = the quota\'s cores ÷ workers).',
  pressure: (c) => `Tasks wait for ${c?.subject ?? 'a resource'} (PSI): find what competes for it (\`top\`, \`iotop -o\`) or give the service more of it.`,
  queue: (c) =>
    `The model server${c?.subject ? ` ${c.subject}` : ''} is saturated: requests wait in its queue while nothing on the host slowed ` +
    'down. Add replicas (or capacity: another GPU, a larger batch budget) and spread the load; a noisy neighbour or a quota would ' +
    'have shown here as steal or throttling.',
  'kv-cache': (c) =>
    `The LLM engine${c?.subject ? ` ${c.subject}` : ''} ran out of KV cache: it evicts running requests and computes them again ` +
    '(preemption), which adds to their time to first token and to their end. Give the cache more memory (vLLM ' +
    '`--gpu-memory-utilization`, SGLang `--mem-fraction-static`), admit fewer sequences at once (`--max-num-seqs`, ' +
    '`--max-running-requests`), or add a replica (see server.kv-preemption).',
  inventory: () =>
    'The regression began with the inventory change above: revert it, or size it to what the process may use (OMP_NUM_THREADS = ' +
    'usable CPUs ÷ workers, --cpuset-cpus to whole cores).',
  none: () =>
    'Nothing on the host moved with it: look at the service itself (a deploy, a model change, the request mix) and compare it with ' +
    'its other hosts; GET /api/v1/hosts/<id>/latency-explained?name=<series> explains any range.',
};

/** vCPUs that lost most to steal in the findings window: where their own steal is well above the host's. */
function stolenCpus(facts: HostFacts): number[] {
  const steal = facts.window?.stealPct?.avg;
  if (!steal) return [];
  return (facts.window?.perCpuStealPct ?? []).filter((c) => c.avg >= STEAL_CONCENTRATION * steal).slice(0, MAX_NAMED_CPUS).map((c) => c.cpu);
}

function regionOf(facts: HostFacts, s: LatencySeriesFacts, method: ExplainMethod): RegionObservation | null {
  const others = s.peers.filter((p) => p.hostId !== facts.host.id && p.requests >= method.minRequests && p.baselineHours >= method.minBaselineHours);
  if (others.length === 0) return null;
  const regressed = others.filter((p) => isRegression(p.currentP99Ms, p.baselineP99Ms, method.ratio, method.minRiseMs)).length;
  return { method: 'host-count', region: facts.host.region, otherHosts: others.length, otherHostsRegressed: regressed };
}

const iso = (ms: number) => new Date(ms).toISOString();

export const p99Regression = defineHostRule({
  id: 'latency.p99-regression',
  title: 'Latency: p99 regressed against its baseline',
  category: 'latency',
  severities: ['warning'],
  defaults: {
    ratio: { value: 1.5, unit: '×', description: "the window's p99 must exceed this multiple of the series' baseline p99" },
    clearRatio: { value: 1.2, unit: '×', description: 'an open finding resolves once p99 falls below this multiple' },
    minRiseMs: { value: 5, unit: 'ms', description: '… and rise by at least this much' },
    minRequests: { value: 200, unit: 'requests', description: 'fewer requests in the window judge nothing' },
  },
  openAfterMs: 0,
  needs: 'latency',
  evaluate(facts, t, ctx) {
    return facts.latency!.series.flatMap((s) => {
      const open = ctx.isOpen(s.name);
      const method: ExplainMethod = { ...DEFAULT_METHOD, ratio: open ? Math.min(t.clearRatio, t.ratio) : t.ratio, minRiseMs: t.minRiseMs, minRequests: t.minRequests };
      // Most series did not regress: judged here before their region's other hosts are looked at.
      if (!isRegression(s.current.p99Ms, s.baseline.p99Ms, method.ratio, method.minRiseMs)) return [];
      const cpus = stolenCpus(facts);
      const gauges = (s.observed?.gauges ?? []).map((o): GaugeObservation => (o.gauge.kind === 'steal' && cpus.length ? { ...o, cpus } : o));
      const explained = explainRegression(
        {
          name: s.name,
          fromMs: s.window.fromMs,
          toMs: s.window.toMs,
          baseline: s.baseline,
          current: s.current,
          perMinuteP99: s.perMinuteP99,
          gauges,
          inventory: s.observed?.inventory ?? [],
          region: regionOf(facts, s, method),
        },
        method,
      );
      // Region-wide is not this host's finding; too little data judges nothing.
      if (explained.verdict !== 'regressed' && explained.verdict !== 'saturated' && explained.verdict !== 'kv-pressure') return [];
      const causes = explained.causes.slice(0, CAUSES_IN_EVIDENCE);
      const top = causes[0];
      const evidence: FindingEvidence = {
        values: [
          { label: "p99 (median of the window's per-minute p99s)", value: s.current.p99Ms, unit: 'ms' },
          { label: 'baseline p99 (median of the hourly p99s of the 24 h before)', value: s.baseline.p99Ms, unit: 'ms' },
          { label: 'baseline hours with requests', value: `${s.baseline.hours} of ${s.baseline.ofHours}` },
          { label: 'ratio', value: explained.ratio, unit: '×' },
          { label: 'requests in the window', value: s.current.requests },
          ...causes.map((c) => ({ label: `likely cause: ${c.kind}${c.subject ? ` (${c.subject})` : ''}`, value: c.summary })),
        ],
        window: { from: iso(s.window.fromMs), to: iso(s.window.toMs) },
        series: causes.flatMap((c) => (c.series ? [c.series] : [])),
        causes,
      };
      return [
        {
          subject: s.name,
          severity: 'warning' as const,
          value: explained.ratio,
          message: explained.summary,
          remedy: REMEDIES[top?.kind ?? 'none'](top),
          evidence,
        },
      ];
    });
  },
});

/**
 * The loosest thresholds the rule judges with anywhere (defaults, overrides, and the clear ratio of open findings):
 * the engine reads gauges for every series above them, so no series the rule may raise lacks its causes.
 */
export function p99RegressionScreen(overrides: readonly ThresholdOverride[]) {
  const values = [p99Regression.defaults, ...overrides.filter((o) => o.ruleId === p99Regression.id && !o.disabled).map((o) => o.thresholds)];
  const least = (name: keyof typeof p99Regression.defaults) =>
    Math.min(...values.flatMap((v) => {
      const x = (v as Record<string, number | { value: number }>)[name];
      return x === undefined ? [] : [typeof x === 'number' ? x : x.value];
    }));
  return { ratio: Math.min(least('ratio'), least('clearRatio')), minRiseMs: least('minRiseMs'), minRequests: least('minRequests') };
}
