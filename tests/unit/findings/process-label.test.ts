import { describe, expect, test } from 'vitest';
import { processLabel } from '../../../lib/findings/facts/services';
import { pinningOverlap } from '../../../lib/findings/rules/pinning.overlap';
import { isaNotCompiled } from '../../../lib/findings/rules/runtime.isa-not-compiled';
import type { ProcessContainer } from '../../../lib/protocol';
import { cleanInventory, hostFacts, ruleContext, watchedProcess } from '../../support/findings-facts';

const ID = '9c1b2d3e4f5a60718293a4b5c6d7e8f90123456789abcdef0123456789abcdef';
const inPod: ProcessContainer = { runtime: 'containerd', id: ID, pod: { uid: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b', qosClass: 'burstable' } };
const inDocker: ProcessContainer = { runtime: 'docker', id: ID };

describe('processLabel: how findings name a watched process', () => {
  test('outside a container: its watched name and pid, as before', () => {
    expect(processLabel(watchedProcess())).toBe('serve.py (pid 4242)');
    expect(processLabel(watchedProcess({ name: 'pid:4242' }))).toBe('pid 4242');
  });

  test('in a container: the pod and container in short, or the container and its engine', () => {
    expect(processLabel(watchedProcess({ container: inPod }))).toBe('serve.py (pid 4242) in pod 3f2a1b4c…/container 9c1b2d3e4f5a…');
    expect(processLabel(watchedProcess({ container: inDocker }))).toBe('serve.py (pid 4242) in container 9c1b2d3e4f5a… (docker)');
    expect(processLabel(watchedProcess({ container: { runtime: null, id: ID } }))).toBe('serve.py (pid 4242) in container 9c1b2d3e4f5a…');
  });

  test('watched by a container or pod selector: named by its comm, not by the selector', () => {
    expect(processLabel(watchedProcess({ name: 'pod:3f2a1b4c', container: inPod }))).toBe('python3 (pid 4242) in pod 3f2a1b4c…/container 9c1b2d3e4f5a…');
    expect(processLabel(watchedProcess({ name: 'python3@container:9c1b', container: inDocker }))).toBe('python3@container:9c1b (pid 4242) in container 9c1b2d3e4f5a… (docker)');
  });
});

describe('rules that name a process name its container', () => {
  test('pinning.overlap lists each process with its pod and container', () => {
    const processes = [watchedProcess({ container: inPod }), watchedProcess({ name: 'tokenizer', pid: 4343, comm: 'python3' })];
    const [verdict] = pinningOverlap.evaluate(hostFacts({ inventory: cleanInventory({ processes }) }), {}, ruleContext());
    expect(verdict?.message).toContain('serve.py (pid 4242) in pod 3f2a1b4c…/container 9c1b2d3e4f5a… on ');
    expect(verdict?.message).toContain('tokenizer (pid 4343) on ');
  });

  test('runtime.isa-not-compiled names the process and its container in the message and the evidence', () => {
    const line = 'I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA';
    const process = watchedProcess({ container: inDocker, logWarnings: [{ id: 'tf-cpu-instructions', line }] });
    const [verdict] = isaNotCompiled.evaluate(hostFacts({ inventory: cleanInventory({ processes: [process] }) }), {}, ruleContext());
    expect(verdict?.message).toMatch(/^serve\.py \(pid 4242\) in container 9c1b2d3e4f5a… \(docker\) runs a TensorFlow binary/);
    expect(verdict?.evidence.values).toContainEqual({ label: 'process', value: 'serve.py (pid 4242) in container 9c1b2d3e4f5a… (docker)' });
  });
});
