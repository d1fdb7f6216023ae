import type { CpuInventory } from '../protocol';
import type { CpuKind, DemoHost } from './fleet';

/** The CPU flags a KVM guest sees with host-passthrough, as /proc/cpuinfo lists them on these models. */
const BASE_FLAGS = 'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves arat umip pku ospke vaes vpclmulqdq rdpid fsrm arch_capabilities';
const ZEN3_FLAGS = `${BASE_FLAGS} mmxext fxsr_opt extd_apicid cmp_legacy cr8_legacy sse4a misalignsse osvw topoext perfctr_core ssbd ibrs ibpb stibp vmmcall clzero xsaveerptr wbnoinvd`;
const AVX512_FLAGS = 'avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl avx512vbmi avx512_vbmi2 gfni avx512_vnni avx512_bitalg avx512_vpopcntdq';
const ICELAKE_FLAGS = `${BASE_FLAGS} ss ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept vpid ept_ad hle rtm ${AVX512_FLAGS} la57 md_clear flush_l1d`;
/** QEMU's default model for a KVM guest: x86-64 baseline, no AVX at all. */
const KVM64_FLAGS = 'fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc nopl xtopology cpuid tsc_known_freq pni cx16 x2apic hypervisor lahf_lm cpuid_fault pti';

const flagList = (text: string, without: (flag: string) => boolean = () => false) =>
  [...new Set(text.split(' '))].filter((flag) => !without(flag)).sort();

const MODELS: Record<CpuKind, { vendor: string; model: string; flags: string }> = {
  'epyc-7543p': { vendor: 'AuthenticAMD', model: 'AMD EPYC 7543P 32-Core Processor', flags: ZEN3_FLAGS },
  'xeon-6338': { vendor: 'GenuineIntel', model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', flags: ICELAKE_FLAGS },
  kvm64: { vendor: 'GenuineIntel', model: 'Common KVM processor', flags: KVM64_FLAGS },
};

/** The flags a Zen 2 host lacks: a guest migrated there reports them on some vCPUs only. */
const ZEN3_ONLY = new Set(['vaes', 'vpclmulqdq', 'fsrm', 'pku', 'ospke']);

/** One node, or the two-node guest's halves ("0-15", "16-31"). */
function numaTopology(host: DemoHost): Pick<CpuInventory, 'numaNodes' | 'numaNodeCpus'> {
  if (host.condition !== 'numa-span') return { numaNodes: 1, numaNodeCpus: [`0-${host.vcpus - 1}`] };
  const half = host.vcpus / 2;
  return { numaNodes: 2, numaNodeCpus: [`0-${half - 1}`, `${half}-${host.vcpus - 1}`] };
}

export function demoCpuInventory(host: DemoHost): CpuInventory {
  const { vendor, model, flags } = MODELS[host.cpuKind];
  const without =
    host.condition === 'avx512-hidden' ? (flag: string) => flag.startsWith('avx512')
    : host.condition === 'flags-nonuniform' ? (flag: string) => ZEN3_ONLY.has(flag)
    : undefined;
  return {
    vendor,
    model,
    sockets: 1,
    cores: host.vcpus,
    threads: host.vcpus,
    ...numaTopology(host),
    flags: flagList(flags, without),
    flagsUniform: host.condition !== 'flags-nonuniform',
    hypervisor: 'kvm',
    hypervisorVendor: 'KVM',
    governor: null,
  };
}
