import { defineHostRule } from '../types';
import { describeHypervisor, passthroughRemedy, x86CpuOf } from '../facts/cpu-exposure';

const REQUIRED_FLAGS = ['avx2', 'fma'] as const;

const LEGACY_CPU =
  'If the physical CPU itself predates AVX2 (Intel before Haswell, AMD before Zen), no setting adds them: ' +
  'as the article puts it, "If you are on a legacy platform without these, move."';

export const avx2Missing = defineHostRule({
  id: 'cpu.avx2-missing',
  title: 'CPU without AVX2/FMA',
  category: 'instruction-sets',
  severities: ['critical'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const cpu = x86CpuOf(facts);
    if (!cpu) return [];
    const missing = REQUIRED_FLAGS.filter((flag) => !cpu.flags.includes(flag));
    if (missing.length === 0) return [];
    const onSomeCpus = cpu.flagsUniform ? '' : ' on at least one vCPU (the vCPUs disagree on their flags)';
    return [
      {
        severity: 'critical',
        message:
          `The CPU flags lack ${missing.join(' and ')}${onSomeCpus}: ${cpu.model || 'unnamed CPU'} (${describeHypervisor(cpu)}). ` +
          'ML runtimes (oneDNN, MKL, OpenBLAS, ONNX Runtime) fall back to their slower SSE/AVX kernels.',
        remedy: cpu.hypervisor === 'none'
          ? `This is the physical CPU: it has no ${missing.join('/')}. Move the workload to hosts with Intel Haswell (2013) or AMD Zen (2017) CPUs or newer — as the article puts it, "If you are on a legacy platform without these, move."`
          : `${passthroughRemedy(cpu.hypervisor)} ${LEGACY_CPU}`,
        evidence: {
          values: [
            { label: 'missing flags', value: missing.join(' ') },
            { label: 'CPU model', value: cpu.model },
            { label: 'CPU vendor', value: cpu.vendor },
            { label: 'hypervisor', value: describeHypervisor(cpu) },
            { label: 'avx', value: cpu.flags.includes('avx') },
            { label: 'flags the same on every vCPU', value: cpu.flagsUniform },
          ],
        },
      },
    ];
  },
});
