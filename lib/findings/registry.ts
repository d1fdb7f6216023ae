import type { FindingRuleDescription } from '../protocol/findings';
import { stealHigh } from './rules/cpu.steal-high';
import { avx2Missing } from './rules/cpu.avx2-missing';
import { avx512Hidden } from './rules/cpu.avx512-hidden';
import { flagsNonuniform } from './rules/cpu.flags-nonuniform';
import { isaNotCompiled } from './rules/runtime.isa-not-compiled';
import { dataPathSlowDisk } from './rules/storage.data-path-slow-disk';
import { diskSaturated } from './rules/storage.disk-saturated';
import { iowaitHigh } from './rules/storage.iowait-high';
import { virtualRotational } from './rules/storage.virtual-rotational';
import { pressureWithoutLoad } from './rules/cpu.pressure-without-load';
import { threadsOversubscribed } from './rules/threads.oversubscribed';
import { residency } from './rules/region.residency';
import { rttGap } from './rules/region.rtt-gap';
import { threadsCountHigh } from './rules/threads.count-high';
import { threadsUnsetInQuota } from './rules/threads.unset-in-quota';
import { tfInterOp } from './rules/threads.tf-inter-op';
import { stoppedReporting } from './rules/agent.stopped-reporting';
import { spoolDropped } from './rules/agent.spool-dropped';
import { processUnreadable } from './rules/agent.process-unreadable';
import { agentOutdated } from './rules/agent.outdated';
import { spinWait } from './rules/openmp.spin-wait';
import { affinityUnset } from './rules/openmp.affinity-unset';
import { cgroupThrottling } from './rules/cgroup.throttling';
import { pinningOverlap } from './rules/pinning.overlap';
import { numaSpan } from './rules/pinning.numa-span';
import { p99Regression } from './rules/latency.p99-regression';
import { kvPreemption } from './rules/server.kv-preemption';
import type { Rule } from './types';

/** Every findings rule, in the order the rule reference lists them. */
export const FINDING_RULES: readonly Rule[] = [
  // instruction sets
  avx2Missing, avx512Hidden, flagsNonuniform, isaNotCompiled,
  // threads and OpenMP
  threadsOversubscribed, threadsCountHigh, threadsUnsetInQuota, tfInterOp, spinWait, affinityUnset,
  // storage
  dataPathSlowDisk, diskSaturated, iowaitHigh, virtualRotational,
  // noisy neighbours, quota, pinning
  stealHigh, pressureWithoutLoad, cgroupThrottling, pinningOverlap, numaSpan,
  // region, agent health, latency
  residency, rttGap, stoppedReporting, spoolDropped, processUnreadable, agentOutdated, p99Regression, kvPreemption,
];

export const docsPathOf = (ruleId: string) => `docs/findings/${ruleId}.md`;

export function findRule(ruleId: string): Rule | undefined {
  return FINDING_RULES.find((rule) => rule.id === ruleId);
}

export function describeRule(rule: Rule): FindingRuleDescription {
  return {
    id: rule.id,
    title: rule.title,
    category: rule.category,
    scope: rule.scope,
    severities: [...rule.severities],
    thresholds: Object.entries(rule.defaults).map(([name, spec]) => ({ name, ...spec })),
    docsPath: docsPathOf(rule.id),
  };
}
