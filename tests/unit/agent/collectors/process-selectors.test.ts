import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseProcessSelector } from '../../../../agent/collectors/process-selectors';
import { resolveWatchedProcesses } from '../../../../agent/collectors/processes';
import { scratchTree } from './inventory-trees';
import { fixture } from './two-readings';

const capturedCgroup = (file: string) => readFileSync(fixture('cgroup-paths', file), 'utf8');

describe('parseProcessSelector', () => {
  test('a plain name stays a name, whatever it holds', () => {
    for (const name of ['python3', 'server.py', 'tritonserver', 'a@b', 'containerd', 'podman']) {
      expect(parseProcessSelector(name)).toEqual({ name, containerIdPrefix: null, podUidPrefix: null });
    }
  });

  test('container:, pod: and NAME@ forms; ids and uids are lower-cased, a systemd-style uid gets its dashes back', () => {
    expect(parseProcessSelector('container:9C1B2D3E4F5A')).toEqual({ name: null, containerIdPrefix: '9c1b2d3e4f5a', podUidPrefix: null });
    expect(parseProcessSelector('pod:3f2a1b4c_5d6e')).toEqual({ name: null, containerIdPrefix: null, podUidPrefix: '3f2a1b4c-5d6e' });
    expect(parseProcessSelector('python3@container:9c1b')).toEqual({ name: 'python3', containerIdPrefix: '9c1b', podUidPrefix: null });
    expect(parseProcessSelector('server.py@pod:3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b')).toMatchObject({ name: 'server.py', podUidPrefix: '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b' });
  });

  test.each([
    ['container:'],
    ['container:9c1'],
    ['container:xyz12345'],
    [`container:${'a'.repeat(65)}`],
    ['pod:'],
    ['pod:3f2'],
    ['pod:not a uid'],
    ['python3@container:'],
  ])('%s is refused with an example of what it takes', (text) => {
    expect(() => parseProcessSelector(text)).toThrow(/takes a (container id|pod uid)/);
  });
});

describe('resolveWatchedProcesses with container selectors (processes in captured cgroups)', () => {
  async function treeWithContainers() {
    const tree = await scratchTree();
    const processes: [number, string, string][] = [
      [100, 'python3', 'docker-v2-systemd.cgroup'],
      [101, 'tini', 'docker-v2-systemd.cgroup'],
      [200, 'python3', 'k8s-crio-v2-systemd-kubic.cgroup'],
      [201, 'pause', 'k8s-crio-v2-systemd-kubic.cgroup'],
      [300, 'python3', 'host-v2-service.cgroup'],
    ];
    for (const [pid, comm, cgroup] of processes) {
      await tree.write(`proc/${pid}/comm`, `${comm}\n`);
      await tree.write(`proc/${pid}/cmdline`, `${comm}\0`);
      await tree.write(`proc/${pid}/cgroup`, capturedCgroup(cgroup));
    }
    return tree;
  }

  test('container: takes every process of the container its id starts with, NAME@ narrows it to those named NAME', async () => {
    const tree = await treeWithContainers();
    try {
      const procRoot = path.join(tree.root, 'proc');
      expect(await resolveWatchedProcesses(procRoot, { names: ['container:b176419186d7'], pids: [] })).toEqual([
        { name: 'container:b176419186d7', pid: 100 },
        { name: 'container:b176419186d7', pid: 101 },
      ]);
      expect(await resolveWatchedProcesses(procRoot, { names: ['python3@container:b176'], pids: [] })).toEqual([{ name: 'python3@container:b176', pid: 100 }]);
      expect(await resolveWatchedProcesses(procRoot, { names: ['container:f33f47b0'], pids: [] })).toEqual([
        { name: 'container:f33f47b0', pid: 200 },
        { name: 'container:f33f47b0', pid: 201 },
      ]);
      expect(await resolveWatchedProcesses(procRoot, { names: ['container:0000'], pids: [] })).toEqual([]);
    } finally {
      await tree.cleanup();
    }
  });

  test('pod: takes the pod\'s processes by uid (dashed or as the cgroup writes it), never a process outside a pod', async () => {
    const tree = await treeWithContainers();
    try {
      const procRoot = path.join(tree.root, 'proc');
      expect((await resolveWatchedProcesses(procRoot, { names: ['pod:042efd86-1f3b'], pids: [] })).map((w) => w.pid)).toEqual([200, 201]);
      expect((await resolveWatchedProcesses(procRoot, { names: ['python3@pod:042efd86_1f3b'], pids: [] })).map((w) => w.pid)).toEqual([200]);
      expect(await resolveWatchedProcesses(procRoot, { names: ['pod:b1764191'], pids: [] })).toEqual([]);
      expect((await resolveWatchedProcesses(procRoot, { names: ['python3'], pids: [] })).map((w) => w.pid)).toEqual([100, 200, 300]);
    } finally {
      await tree.cleanup();
    }
  });
});
