import { describe, expect, test } from 'vitest';
import type { CpuInventory } from '../../protocol';
import { cleanCpu, cleanInventory, defaultsOf, emptyFleet, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { avx512Hidden } from './cpu.avx512-hidden';

const t = defaultsOf(avx512Hidden.defaults);
const MODEL = cleanCpu().model;
const NO_AVX512 = cleanCpu().flags.filter((f) => !f.startsWith('avx512'));
const withoutAvx512 = (patch: Partial<CpuInventory> = {}) =>
  hostFacts({ inventory: cleanInventory({ cpu: cleanCpu({ flags: NO_AVX512, ...patch }) }) });
/** The fleet as readFleetFacts counts it: this host (without avx512f) included in `hosts`. */
const fleetOf = (hosts: number, withAvx512: number, model = MODEL) => emptyFleet({ cpuModels: new Map([[model, { hosts, withAvx512 }]]) });
const judge = (facts = withoutAvx512(), fleet = fleetOf(4, 3), thresholds = t) => avx512Hidden.evaluate(facts, thresholds, ruleContext([], fleet));

describe('cpu.avx512-hidden', () => {
  test('a clean host (which sees avx512f) raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
  });

  test('other hosts of the same model see avx512f and this KVM guest does not: the hypervisor masks it', () => {
    const [v] = judge();
    expect(v).toMatchObject({ severity: 'warning', value: 3 });
    expect(v!.message).toBe(
      `All 3 other hosts with ${MODEL} see avx512f; this one (KVM guest, KVMKVMKVM) does not, so its hypervisor masks it.`,
    );
    expect(v!.remedy).toContain("<cpu mode='host-passthrough'/>");
    expect(v!.remedy).toContain('oneDNN and MKL choose their AVX-512 kernels only when the guest sees avx512f');
  });

  test('counts are worded for one host and for some of several', () => {
    expect(judge(withoutAvx512(), fleetOf(2, 1))[0]!.message).toMatch(/^The other host with .* sees avx512f;/);
    expect(judge(withoutAvx512(), fleetOf(6, 2))[0]!.message).toMatch(/^2 of the 5 other hosts with .* see avx512f;/);
  });

  test('no other host of the model shows it: nothing to compare against', () => {
    expect(judge(withoutAvx512(), fleetOf(5, 0))).toEqual([]);
    expect(judge(withoutAvx512(), emptyFleet())).toEqual([]);
  });

  test('hosts of a different model do not count', () => {
    expect(judge(withoutAvx512(), fleetOf(4, 3, 'AMD EPYC 7763 64-Core Processor'))).toEqual([]);
  });

  test('the threshold: exactly the minimum raises, one fewer does not', () => {
    const atLeastTwo = { ...t, minHostsWithAvx512: 2 };
    expect(judge(withoutAvx512(), fleetOf(4, 2), atLeastTwo)).toHaveLength(1);
    expect(judge(withoutAvx512(), fleetOf(4, 1), atLeastTwo)).toEqual([]);
  });

  test('a minimum of 0 still needs one host that shows it', () => {
    expect(judge(withoutAvx512(), fleetOf(4, 0), { ...t, minHostsWithAvx512: 0 })).toEqual([]);
  });

  test('on bare metal the firmware or kernel is blamed, not a hypervisor', () => {
    const [v] = judge(withoutAvx512({ hypervisor: 'none', hypervisorVendor: null }));
    expect(v!.message).toContain('(bare metal) does not, so its firmware or kernel hides it.');
    expect(v!.remedy).toContain('clearcpuid=');
    expect(v!.remedy).not.toContain('host-passthrough');
  });

  test('other architectures, unnamed CPUs and unavailable inventories are not judged', () => {
    expect(judge(withoutAvx512({ vendor: '0x41' }))).toEqual([]);
    expect(judge(withoutAvx512({ model: '' }), fleetOf(4, 3, ''))).toEqual([]);
    expect(judge(hostFacts({ inventory: cleanInventory({ cpu: { unavailable: 'cpu inventory: no online processor in /proc/cpuinfo' } }) }))).toEqual([]);
  });
});
