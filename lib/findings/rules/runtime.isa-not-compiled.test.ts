import { describe, expect, test } from 'vitest';
import type { LogWarning, ProcessInventory } from '../../protocol';
import { matchWarning } from '../../../agent/collectors/log-warnings';
import { cleanCpu, cleanInventory, defaultsOf, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { bazelBuildCommand, cpuinfoFlagOf, isaNotCompiled, parseUnusedInstructions } from './runtime.isa-not-compiled';

const t = defaultsOf(isaNotCompiled.defaults);

// Real lines, as TensorFlow's cpu_feature_guard.cc logs them.
const TF_1X = "2019-01-14 10:02:11.123456: W tensorflow/core/platform/cpu_feature_guard.cc:45] The TensorFlow library wasn't compiled to use AVX2 instructions, but these are available on your machine and could speed up CPU computations.";
const TF_NO_ONEDNN = '2020-06-02 09:41:17.123456: I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA';
// TF 2.4–2.11; its second line is "To enable them in other operations, rebuild TensorFlow …" (no instructions).
const TF_2_4_TO_2_11 = '2021-03-04 01:11:51.058824: I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use the following CPU instructions in performance-critical operations:  AVX2 AVX512F FMA';
const TF_ONEDNN = 'To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.';

/** The warning exactly as the agent reports it (its matcher, not a hand-made object). */
const reported = (line: string): LogWarning => {
  const warning = matchWarning(line);
  if (!warning) throw new Error(`the agent does not match: ${line}`);
  return warning;
};
const withProcesses = (processes: ProcessInventory[], flags = cleanCpu().flags) =>
  hostFacts({ inventory: cleanInventory({ cpu: cleanCpu({ flags }), processes }) });
const logging = (line: string, patch: Partial<ProcessInventory> = {}) => watchedProcess({ logWarnings: [reported(line)], ...patch });
const judge = (facts = withProcesses([logging(TF_NO_ONEDNN)])) => isaNotCompiled.evaluate(facts, t, ruleContext());

describe('parseUnusedInstructions', () => {
  test('reads each of TensorFlow\'s wordings', () => {
    expect(parseUnusedInstructions(TF_NO_ONEDNN)).toEqual({ scope: 'binary', instructions: ['AVX2', 'FMA'] });
    expect(parseUnusedInstructions(TF_ONEDNN)).toEqual({ scope: 'outside-onednn', instructions: ['AVX2', 'AVX512F', 'AVX512_VNNI', 'FMA'] });
    expect(parseUnusedInstructions(TF_1X)).toEqual({ scope: 'binary', instructions: ['AVX2'] });
    expect(parseUnusedInstructions(TF_2_4_TO_2_11)).toEqual({ scope: 'outside-onednn', instructions: ['AVX2', 'AVX512F', 'FMA'] });
    expect(parseUnusedInstructions("The TensorFlow library wasn't compiled to use SSE4.1 instructions, but these are available")).toEqual({ scope: 'binary', instructions: ['SSE4.1'] });
  });

  test('other lines, and a message without instructions, give nothing', () => {
    expect(parseUnusedInstructions('This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.')).toBeNull();
    expect(parseUnusedInstructions('To enable the following instructions: , in other operations, rebuild TensorFlow')).toBeNull();
  });

  test('names map to /proc/cpuinfo flags, SSE3 being "pni" there', () => {
    expect(['AVX2', 'FMA', 'AVX512F', 'AVX512_VNNI', 'AVX_VNNI', 'AMX_TILE', 'SSE4.1', 'SSE4.2', 'SSE3'].map(cpuinfoFlagOf)).toEqual([
      'avx2', 'fma', 'avx512f', 'avx512_vnni', 'avx_vnni', 'amx_tile', 'sse4_1', 'sse4_2', 'pni',
    ]);
  });

  test('the Bazel command is the article\'s, with the compiler option of each flag', () => {
    expect(bazelBuildCommand(['avx', 'avx2', 'fma'])).toBe('bazel build --config=opt --copt=-mavx --copt=-mavx2 --copt=-mfma //tensorflow/tools/pip_package:build_pip_package');
    expect(bazelBuildCommand(['avx512_vnni', 'amx_tile'])).toBe('bazel build --config=opt --copt=-mavx512vnni --copt=-mamx-tile //tensorflow/tools/pip_package:build_pip_package');
  });
});

describe('runtime.isa-not-compiled', () => {
  test('a clean host (no TensorFlow warning) raises nothing', () => {
    expect(isaNotCompiled.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('a binary compiled without AVX2 and FMA on a CPU that has them is a warning about that process', () => {
    const [v] = judge();
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'warning' });
    expect(v!.message).toBe('serve.py (pid 4242) runs a TensorFlow binary compiled without AVX2 and FMA, which this CPU has: its kernels never use them.');
    expect(v!.remedy).toContain('`bazel build --config=opt --copt=-mavx2 --copt=-mfma //tensorflow/tools/pip_package:build_pip_package`');
    expect(v!.remedy).toContain('intel-tensorflow');
    expect(v!.evidence.values).toContainEqual({ label: 'TensorFlow says', value: TF_NO_ONEDNN });
  });

  test('a oneDNN build says its other operations run without them', () => {
    const [v] = judge(withProcesses([logging(TF_ONEDNN)]));
    expect(v!.message).toBe(
      'serve.py (pid 4242) runs a TensorFlow binary that uses AVX2, AVX512F, AVX512_VNNI and FMA only in its oneDNN kernels; this CPU has them, and its other operations run without them.',
    );
  });

  test('the TF 2.4–2.11 oneDNN wording is judged like the later one', () => {
    // Built by hand: the agent's pattern does not match this wording yet.
    const process = watchedProcess({ logWarnings: [{ id: 'tf-cpu-instructions', line: TF_2_4_TO_2_11 }] });
    expect(judge(withProcesses([process]))[0]!.message).toContain('uses AVX2, AVX512F and FMA only in its oneDNN kernels');
  });

  test('only instructions the CPU has are named; none of them, no finding', () => {
    const avx2Only = ['fpu', 'sse4_2', 'avx', 'avx2', 'fma'];
    const [v] = judge(withProcesses([logging(TF_ONEDNN)], avx2Only));
    expect(v!.message).toContain('uses AVX2 and FMA only');
    expect(v!.remedy).not.toContain('avx512');
    expect(v!.evidence.values).toContainEqual({ label: "listed, but not in the host's CPU flags", value: 'AVX512F AVX512_VNNI' });
    expect(judge(withProcesses([logging(TF_ONEDNN)], ['fpu', 'sse4_2', 'avx']))).toEqual([]);
  });

  test('one finding per watched process that logged it', () => {
    const verdicts = judge(withProcesses([logging(TF_NO_ONEDNN), watchedProcess({ name: 'batch.py', pid: 5000 }), logging(TF_1X, { name: 'legacy.py', pid: 6000 })]));
    expect(verdicts.map((v) => v.subject)).toEqual(['serve.py', 'legacy.py']);
  });

  test('other runtime warnings do not count: oneDNN\'s ISA line and NNPACK are about the CPU, not the build', () => {
    const onednn = logging('onednn_verbose,info,cpu,isa:Intel AVX2 with Intel DL Boost');
    const nnpack = logging('[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware.');
    expect(onednn.logWarnings[0]!.id).toBe('onednn-isa');
    expect(nnpack.logWarnings[0]!.id).toBe('nnpack-unsupported-hardware');
    expect(judge(withProcesses([onednn, nnpack]))).toEqual([]);
  });

  test('without the CPU flags nothing is judged', () => {
    expect(judge(hostFacts({ inventory: cleanInventory({ cpu: { unavailable: 'cpu inventory: /proc/cpuinfo not readable' }, processes: [logging(TF_NO_ONEDNN)] }) }))).toEqual([]);
    expect(judge(withProcesses([logging(TF_NO_ONEDNN)], []))).toEqual([]);
  });
});
