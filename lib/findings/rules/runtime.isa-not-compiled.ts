import { isUnavailable, type LogWarning, type ProcessInventory } from '../../protocol';
import { processLabel } from '../facts/services';
import { defineHostRule, type Verdict } from '../types';

/** Which TensorFlow message it was: the whole binary lacks them, or only its operations outside oneDNN do. */
export type UnusedScope = 'binary' | 'outside-onednn';

export interface UnusedInstructions {
  scope: UnusedScope;
  /** As TensorFlow names them: AVX2, FMA, AVX512_VNNI, SSE4.1, … */
  instructions: string[];
}

// The wordings of tensorflow/core/platform/cpu_feature_guard.cc: TF 1.x (one instruction per line), a build without
// oneDNN, and a oneDNN build (the official wheels since 2.4, in two wordings), which names what its other operations lack.
const MESSAGES: readonly { pattern: RegExp; scope: UnusedScope }[] = [
  { pattern: /To enable the following instructions:\s*(.+?),\s*in other operations/, scope: 'outside-onednn' },
  { pattern: /\(oneDNN\) to use the following CPU instructions in performance-critical operations:\s*(.+)$/, scope: 'outside-onednn' },
  { pattern: /binary was not compiled to use:\s*(.+)$/, scope: 'binary' },
  { pattern: /library wasn't compiled to use (\S+) instructions/, scope: 'binary' },
];

export function parseUnusedInstructions(line: string): UnusedInstructions | null {
  for (const { pattern, scope } of MESSAGES) {
    const match = pattern.exec(line);
    if (!match) continue;
    const instructions = match[1]!.trim().split(/\s+/).filter((name) => /^[A-Z][A-Z0-9_.]*$/.test(name));
    return instructions.length ? { scope, instructions } : null;
  }
  return null;
}

/** TensorFlow's name → the /proc/cpuinfo flag: lower case, except where the kernel names it differently. */
const CPUINFO_NAMES: Record<string, string> = { SSE3: 'pni', 'SSE4.1': 'sse4_1', 'SSE4.2': 'sse4_2' };
export const cpuinfoFlagOf = (instruction: string) => CPUINFO_NAMES[instruction] ?? instruction.toLowerCase();

/** The GCC/Clang option that lets the compiler use each flag's instructions. */
const COMPILER_OPTIONS: Record<string, string> = {
  sse3: '-msse3', pni: '-msse3', sse4_1: '-msse4.1', sse4_2: '-msse4.2', avx: '-mavx', avx2: '-mavx2', fma: '-mfma',
  avx512f: '-mavx512f', avx512_vnni: '-mavx512vnni', avx512_bf16: '-mavx512bf16', avx512_fp16: '-mavx512fp16',
  avx_vnni: '-mavxvnni', avx_vnni_int8: '-mavxvnniint8', avx_ne_convert: '-mavxneconvert',
  amx_tile: '-mamx-tile', amx_int8: '-mamx-int8', amx_bf16: '-mamx-bf16', amx_fp16: '-mamx-fp16',
};

export function bazelBuildCommand(flags: readonly string[]): string {
  const copts = flags.flatMap((flag) => (COMPILER_OPTIONS[flag] ? [`--copt=${COMPILER_OPTIONS[flag]}`] : []));
  return ['bazel build --config=opt', ...copts, '//tensorflow/tools/pip_package:build_pip_package'].join(' ');
}

const TF_WARNING_ID = 'tf-cpu-instructions';

const joinNames = (names: readonly string[]) =>
  names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

export const isaNotCompiled = defineHostRule({
  id: 'runtime.isa-not-compiled',
  title: "Framework built without the CPU's instructions",
  category: 'instruction-sets',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const inventory = facts.inventory!.data;
    const cpu = inventory.cpu;
    if (isUnavailable(cpu) || cpu.flags.length === 0) return [];
    const verdicts = new Map<string, Verdict>();
    for (const process of inventory.processes) {
      if (verdicts.has(process.name)) continue;
      const warning = process.logWarnings.find((w) => w.id === TF_WARNING_ID);
      const parsed = warning && parseUnusedInstructions(warning.line);
      if (!warning || !parsed) continue;
      const onCpu = parsed.instructions.filter((name) => cpu.flags.includes(cpuinfoFlagOf(name)));
      if (onCpu.length === 0) continue;
      verdicts.set(process.name, verdictFor(process, warning, parsed, onCpu));
    }
    return [...verdicts.values()];
  },
});

function verdictFor(process: ProcessInventory, warning: LogWarning, parsed: UnusedInstructions, onCpu: string[]): Verdict {
  const label = processLabel(process);
  const listed = joinNames(onCpu);
  const notOnCpu = parsed.instructions.filter((i) => !onCpu.includes(i));
  return {
    subject: process.name,
    severity: 'warning',
    message:
      parsed.scope === 'binary'
        ? `${label} runs a TensorFlow binary compiled without ${listed}, which this CPU has: its kernels never use them.`
        : `${label} runs a TensorFlow binary that uses ${listed} only in its oneDNN kernels; this CPU has them, and its other operations run without them.`,
    remedy:
      'Install a TensorFlow build that uses them: an optimized distribution such as intel-tensorflow ' +
      '(`pip install intel-tensorflow`), or build it from source as the article does, with the instructions this CPU ' +
      `has: \`${bazelBuildCommand(onCpu.map(cpuinfoFlagOf))}\` (or \`--copt=-march=native\` for this CPU model only). ` +
      'Deploy that build only to hosts whose CPUs have the same instructions: elsewhere it refuses to start or dies with an illegal instruction.',
    evidence: {
      values: [
        { label: 'process', value: label },
        { label: 'unused instructions the CPU has', value: onCpu.join(' ') },
        ...(notOnCpu.length ? [{ label: "listed, but not in the host's CPU flags", value: notOnCpu.join(' ') }] : []),
        { label: 'TensorFlow says', value: warning.line },
      ],
    },
  };
}
