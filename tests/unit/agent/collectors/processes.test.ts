import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  collectProcessInventory,
  createProcessCollector,
  parseCmdline,
  parseEnviron,
  parsePidStat,
  parseStatus,
  resolveWatchedProcesses,
} from '../../../../agent/collectors/processes';
import { matchesProcessName } from '../../../../agent/collectors/process-selectors';
import { processInventorySchema, processSampleSchema } from '../../../../lib/protocol';
import { inventoryFixture, scratchTree, treeContext } from './inventory-trees';
import { fixture } from './two-readings';

const captured = inventoryFixture('inventory-firecracker-v1');
const handmadeV1 = inventoryFixture('inventory-cgroup-v1-handmade');
const PYTHON_PID = 14245;

describe('process parsers', () => {
  test('parseStatus reads threads, allowed CPUs, context switches and RSS of a python3 captured on this host', async () => {
    const status = parseStatus(await readFile(path.join(captured, `proc/${PYTHON_PID}/status`), 'utf8'));
    expect(status).toEqual({ threads: 1, cpusAllowedList: '0-1', voluntaryCtxSwitches: 16, nonvoluntaryCtxSwitches: 3, rssBytes: 8300 * 1024 });
  });

  test('parseStatus gives 0 RSS for a kernel thread, which has no VmRSS line and no user memory', () => {
    expect(parseStatus('Name:\tkworker/0:1\nThreads:\t1\nCpus_allowed_list:\t0\n').rssBytes).toBe(0);
  });

  test('parseStatus gives null, not a number, for each field whose line does not parse', () => {
    const status = parseStatus('Threads:\tmany\nVmRSS:\t12 MB\nvoluntary_ctxt_switches:\t-4\nnonvoluntary_ctxt_switches:\t1e3\n');
    expect(status).toEqual({ threads: null, cpusAllowedList: null, voluntaryCtxSwitches: null, nonvoluntaryCtxSwitches: null, rssBytes: null });
  });

  test('parsePidStat reads utime, stime and start time, even when comm holds spaces and parentheses', async () => {
    const text = await readFile(path.join(captured, `proc/${PYTHON_PID}/stat`), 'utf8');
    expect(parsePidStat(text)).toEqual({ comm: 'python3', utimeTicks: 1, stimeTicks: 0, startTicks: 66506 });
    const odd = text.replace('(python3)', '(my (odd) proc)');
    expect(parsePidStat(odd)).toEqual({ comm: 'my (odd) proc', utimeTicks: 1, stimeTicks: 0, startTicks: 66506 });
  });

  test('parseCmdline splits the NUL-separated argv captured on this host', async () => {
    expect(parseCmdline(await readFile(path.join(captured, `proc/${PYTHON_PID}/cmdline`)))).toEqual(['python3', '-u', 'server.py', '--port', '8000']);
  });

  test('matchesProcessName accepts comm, the executable and the script, and nothing else', () => {
    const argv = ['/usr/bin/python3', '-u', '/srv/app/server.py', '--port', '8000'];
    expect(matchesProcessName('python3', 'python3', argv)).toBe(true);
    expect(matchesProcessName('server.py', 'python3', argv)).toBe(true);
    expect(matchesProcessName('8000', 'python3', argv)).toBe(false);
    expect(matchesProcessName('server', 'python3', argv)).toBe(false);
    expect(matchesProcessName('triton_inference_server', 'triton_inferenc', [])).toBe(true);
  });
});

describe('parseEnviron', () => {
  test('keeps only allow-listed variables from an environ holding fake secrets', async () => {
    const buffer = await readFile(path.join(handmadeV1, 'proc/4242/environ'));
    expect(buffer.toString('latin1')).toContain('AWS_SECRET_ACCESS_KEY=');
    const env = parseEnviron(buffer);
    expect(env).toEqual({ OMP_NUM_THREADS: '8', KMP_BLOCKTIME: '200', MKL_NUM_THREADS: '8' });
    const serialized = JSON.stringify(env);
    for (const secret of ['AWS_SECRET', 'wJalrXUtnFEMI', 'DATABASE_URL', 'hunter2', 'HF_TOKEN', 'hf_fake', 'OMP_NUM_THREADS_X', 'PATH']) {
      expect(serialized).not.toContain(secret);
    }
  });

  test('handles a missing trailing NUL, entries without "=" and values containing "="', () => {
    expect(parseEnviron(Buffer.from('garbage\0KMP_AFFINITY=granularity=fine,compact,1,0\0OMP_NUM_THREADS=2'))).toEqual({
      KMP_AFFINITY: 'granularity=fine,compact,1,0',
      OMP_NUM_THREADS: '2',
    });
  });
});

describe('resolveWatchedProcesses', () => {
  test('matches the captured python3 by interpreter name and by script, and keeps --watch-pid entries', async () => {
    const procRoot = path.join(captured, 'proc');
    expect(await resolveWatchedProcesses(procRoot, { names: ['server.py'], pids: [] })).toEqual([{ name: 'server.py', pid: PYTHON_PID }]);
    expect(await resolveWatchedProcesses(procRoot, { names: ['python3'], pids: [] })).toEqual([{ name: 'python3', pid: PYTHON_PID }]);
    expect(await resolveWatchedProcesses(procRoot, { names: ['nginx'], pids: [PYTHON_PID, 999999] })).toEqual([{ name: `pid:${PYTHON_PID}`, pid: PYTHON_PID }]);
  });

  test('caps the matches per name at 16 and lists each pid once', async () => {
    const tree = await scratchTree();
    try {
      for (let pid = 100; pid < 120; pid++) {
        await tree.write(`proc/${pid}/comm`, 'worker\n');
        await tree.write(`proc/${pid}/cmdline`, 'worker\0');
      }
      const watched = await resolveWatchedProcesses(path.join(tree.root, 'proc'), { names: ['worker', 'worker'], pids: [] });
      expect(watched.map((w) => w.pid)).toEqual(Array.from({ length: 16 }, (_, i) => 100 + i));
    } finally {
      await tree.cleanup();
    }
  });
});

describe('createProcessCollector', () => {
  test('turns utime+stime ticks and context switches into per-second rates', async () => {
    const tree = await scratchTree('inventory-firecracker-v1');
    try {
      const collector = createProcessCollector();
      const watched = [{ name: 'server.py', pid: PYTHON_PID }];
      expect(await collector.collect(treeContext(tree.root, watched, 10_000))).toEqual([]);
      const dir = `proc/${PYTHON_PID}`;
      const stat = await readFile(path.join(tree.root, dir, 'stat'), 'utf8');
      // utime 1 → 151, stime 0 → 50 over 2 s: 200 ticks = 2 s of CPU = 1 core.
      await tree.write(`${dir}/stat`, stat.replace(' 1 0 0 0 20 ', ' 151 50 0 0 20 '));
      const status = await readFile(path.join(tree.root, dir, 'status'), 'utf8');
      await tree.write(`${dir}/status`, status.replace('\nvoluntary_ctxt_switches:\t16', '\nvoluntary_ctxt_switches:\t216').replace('nonvoluntary_ctxt_switches:\t3', 'nonvoluntary_ctxt_switches:\t23'));
      const [sample] = await collector.collect(treeContext(tree.root, watched, 12_000));
      expect(sample).toEqual({ name: 'server.py', pid: PYTHON_PID, threads: 1, cpuCores: 1, rssBytes: 8300 * 1024, voluntaryCtxSwitchesPerS: 100, nonvoluntaryCtxSwitchesPerS: 10 });
      expect(processSampleSchema.parse(sample)).toEqual(sample);
    } finally {
      await tree.cleanup();
    }
  });

  test('a process that exits between readings is dropped without an error', async () => {
    const tree = await scratchTree('inventory-firecracker-v1');
    try {
      await tree.write('proc/4242/stat', '4242 (gunicorn) S 1 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 9 0 500 0 0\n');
      await tree.write('proc/4242/status', 'Threads:\t9\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t1\n');
      const collector = createProcessCollector();
      const watched = [{ name: 'python3', pid: PYTHON_PID }, { name: 'gunicorn', pid: 4242 }];
      await collector.collect(treeContext(tree.root, watched, 0));
      await tree.remove('proc/4242');
      const samples = await collector.collect(treeContext(tree.root, watched, 1000));
      expect(samples.map((s) => s.pid)).toEqual([PYTHON_PID]);
    } finally {
      await tree.cleanup();
    }
  });

  test('a reused pid (new start time) starts a new baseline instead of a bogus rate', async () => {
    const tree = await scratchTree('inventory-firecracker-v1');
    try {
      const collector = createProcessCollector();
      const watched = [{ name: 'python3', pid: PYTHON_PID }];
      await collector.collect(treeContext(tree.root, watched, 0));
      const stat = await readFile(path.join(tree.root, `proc/${PYTHON_PID}/stat`), 'utf8');
      await tree.write(`proc/${PYTHON_PID}/stat`, stat.replace(' 66506 ', ' 99999 '));
      expect(await collector.collect(treeContext(tree.root, watched, 1000))).toEqual([]);
    } finally {
      await tree.cleanup();
    }
  });
});

describe('collectProcessInventory', () => {
  test('gunicorn in a v1 container (hand-made): threads, pinned CPUs, allow-listed env only, its cgroup, runtimes and log warnings', async () => {
    const logs = new Map([['gunicorn', [{ id: 'omp-team-size', line: 'OMP: Warning #96: Cannot form a team with 8 threads, using 2 instead.' }]]]);
    const [inventory] = await collectProcessInventory(treeContext(handmadeV1, [{ name: 'gunicorn', pid: 4242 }]), logs);
    expect(inventory).toEqual({
      name: 'gunicorn',
      pid: 4242,
      comm: 'gunicorn',
      threads: 9,
      cpusAllowedList: '0-1',
      cpusAllowedCount: 2,
      env: { OMP_NUM_THREADS: '8', KMP_BLOCKTIME: '200', MKL_NUM_THREADS: '8' },
      cgroup: { path: '/docker/abc', version: 1, quotaCores: 2.5, cpusetCpus: '0-1', effectiveCpus: 2 },
      runtimes: [{ id: 'intel-openmp', library: 'libiomp5.so' }, { id: 'mkl', library: 'libmkl_rt.so.2' }],
      logWarnings: logs.get('gunicorn'),
    });
    expect(processInventorySchema.parse(inventory)).toEqual(inventory);
  });

  test('a process in a Kubernetes pod carries runtime, id, pod uid and QoS class; one in a hand-made group that names no container carries none', async () => {
    const tree = await scratchTree('inventory-cgroup-v2-handmade');
    try {
      await tree.write('proc/778/comm', 'python3\n');
      await tree.write('proc/778/status', 'Name:\tpython3\nThreads:\t4\nCpus_allowed_list:\t0-3\n');
      await tree.write('proc/778/cgroup', await readFile(fixture('cgroup-paths', 'k8s-containerd-1.6-v2-systemd.cgroup'), 'utf8'));
      await tree.write('proc/777/comm', 'python3\n');
      await tree.write('proc/777/status', 'Name:\tpython3\nThreads:\t4\nCpus_allowed_list:\t0-3\n');
      const [inPod, notInContainer] = await collectProcessInventory(treeContext(tree.root, [{ name: 'python3', pid: 778 }, { name: 'server.py', pid: 777 }]));
      expect(inPod?.container).toEqual({
        runtime: 'containerd',
        id: '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26',
        pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'besteffort' },
      });
      expect(processInventorySchema.parse(inPod)).toEqual(inPod);
      expect(notInContainer).toBeDefined();
      expect(notInContainer).not.toHaveProperty('container');
    } finally {
      await tree.cleanup();
    }
  });

  test('an unreadable environ gives env {} and says why; a vanished process is left out', async () => {
    const tree = await scratchTree('inventory-firecracker-v1');
    try {
      await tree.remove(`proc/${PYTHON_PID}/environ`);
      await tree.write(`proc/${PYTHON_PID}/environ/.keep`, '');
      const inventories = await collectProcessInventory(treeContext(tree.root, [{ name: 'python3', pid: PYTHON_PID }, { name: 'gone', pid: 31337 }]));
      expect(inventories).toHaveLength(1);
      expect(inventories[0]).toMatchObject({ env: {}, envUnreadable: expect.stringMatching(/^environ: /), cgroup: { path: '/', version: 1, effectiveCpus: 2 } });
      expect(processInventorySchema.parse(inventories[0])).toBeTruthy();
    } finally {
      await tree.cleanup();
    }
  });
});
