import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createCgroupCollector } from '../../../../agent/collectors/cgroups/collector';
import { chooseCgroupLayout, groupDir, hostGroupPath, mountPointUnder, parseCgroupMounts } from '../../../../agent/collectors/cgroups/layout';
import { collectCgroupConfig } from '../../../../agent/collectors/cgroups/limits';
import { parseCfsLimit, parseCgroupFile, parseCpuMax, parseCpuStat } from '../../../../agent/collectors/cgroups/parse';
import { cgroupConfigSchema, cgroupSampleSchema } from '../../../../lib/protocol';
import { expectAvailable, inventoryFixture, scratchTree, treeContext } from './inventory-trees';

const captured = inventoryFixture('inventory-firecracker-v1');
const readCaptured = (file: string) => readFile(path.join(captured, file), 'utf8');

describe('cgroup parsers', () => {
  test('parseCgroupFile reads the v1 controllers and the v2 path of this host\'s /proc/self/cgroup', async () => {
    const membership = parseCgroupFile(await readCaptured('proc/self/cgroup'));
    expect(membership.unified).toBe('/');
    expect(membership.v1).toMatchObject({ cpu: '/', cpuacct: '/', cpuset: '/', memory: '/process_api/be9f6efb0a1da4dcb47fc07541fc0bc2', 'name=systemd': '/' });
  });

  test('parseCgroupFile splits co-mounted v1 controllers', () => {
    expect(parseCgroupFile('4:cpu,cpuacct:/docker/abc\n0::/system.slice/docker-abc.scope\n')).toEqual({
      unified: '/system.slice/docker-abc.scope',
      v1: { cpu: '/docker/abc', cpuacct: '/docker/abc' },
    });
  });

  test('parseCpuMax: "max" is unlimited, "200000 100000" is a 2-core quota', () => {
    expect(parseCpuMax('max 100000\n')).toEqual({ quotaUs: null, periodUs: 100000 });
    expect(parseCpuMax('200000 100000\n')).toEqual({ quotaUs: 200000, periodUs: 100000 });
  });

  test('parseCgroupFile ignores a group path that is empty, relative or too long for the protocol', () => {
    expect(parseCgroupFile(`0::\n4:cpu:docker/x\n5:cpuset:/${'a'.repeat(1000)}\n6:cpuacct:/ok\n`)).toEqual({ unified: null, v1: { cpuacct: '/ok' } });
  });

  test('parseCpuMax and parseCfsLimit: a limit that does not parse is null, not "unlimited"', () => {
    for (const odd of ['', 'x 100000', '-5 100000', '200000 0', '200000 x', 'max -1']) expect(parseCpuMax(odd), odd).toBeNull();
    expect(parseCfsLimit('-1\n', '100000\n')).toEqual({ quotaUs: null, periodUs: 100000 });
    expect(parseCfsLimit('150000', '100000')).toEqual({ quotaUs: 150000, periodUs: 100000 });
    for (const [quota, period] of [['x', '100000'], ['-2', '100000'], ['150000', ''], ['150000', '0']]) expect(parseCfsLimit(quota!, period!)).toBeNull();
  });

  test('parseCpuStat is null when a line it uses does not parse, rather than 0 throttling', () => {
    expect(parseCpuStat('usage_usec 500\nnr_periods x\nnr_throttled 3\n')).toBeNull();
    expect(parseCpuStat('usage_usec 500\nsome_new_field x\n')).toMatchObject({ usageUs: 500 });
  });

  test('parseCpuStat reads v2 usage and throttling in microseconds', () => {
    const text = 'usage_usec 500\nuser_usec 400\nsystem_usec 100\nnr_periods 10\nnr_throttled 3\nthrottled_usec 1500\nnr_bursts 0\nburst_usec 0\n';
    expect(parseCpuStat(text)).toEqual({ usageUs: 500, nrPeriods: 10, nrThrottled: 3, throttledUs: 1500 });
  });

  test('parseCpuStat converts v1 throttled_time from ns (this host\'s cpu.stat and unified cpu.stat)', async () => {
    expect(parseCpuStat('nr_periods 4\nnr_throttled 2\nthrottled_time 3000000\n')).toEqual({ usageUs: null, nrPeriods: 4, nrThrottled: 2, throttledUs: 3000 });
    expect(parseCpuStat(await readCaptured('sys/fs/cgroup/cpu/cpu.stat'))).toEqual({ usageUs: null, nrPeriods: 0, nrThrottled: 0, throttledUs: 0 });
    expect(parseCpuStat(await readCaptured('sys/fs/cgroup/unified/cpu.stat'))).toMatchObject({ usageUs: 192167361, nrPeriods: 0 });
  });

  test('this host mounts cpu and cpuacct as separate v1 hierarchies, so v1 wins over the unified mount', async () => {
    const mounts = parseCgroupMounts(await readCaptured('proc/self/mountinfo'));
    expect(mounts.filter((m) => m.version === 2).map((m) => m.mountPoint)).toEqual(['/sys/fs/cgroup/unified']);
    const layout = chooseCgroupLayout(mounts);
    expect(layout?.version).toBe(1);
    if (layout?.version !== 1) return;
    expect([layout.cpu?.mountPoint, layout.cpuacct?.mountPoint, layout.cpuset?.mountPoint]).toEqual(['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup/cpuset']);
  });

  test('read from a container with its own cgroup namespace, the host\'s hierarchy root ("/../..") is the mount itself; a group below it stays out of reach', () => {
    const [mount] = parseCgroupMounts('35 24 0:30 /../../.. /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n');
    expect(groupDir('/host/sys', [mount!, '/../../..'])).toBe('/host/sys/fs/cgroup');
    expect(groupDir('/host/sys', [mount!, '/../../kubepods.slice'])).toBeNull();
  });

  test('hostGroupPath puts a path read inside a cgroup namespace back in the host hierarchy, and refuses one above its root', () => {
    const root = '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podA.slice/cri-containerd-B.scope';
    expect(hostGroupPath(root, '/../../../kubepods-besteffort.slice/pod-C.slice/ctr.scope')).toBe('/kubepods.slice/kubepods-besteffort.slice/pod-C.slice/ctr.scope');
    expect(hostGroupPath(root, '/')).toBe(root);
    expect(hostGroupPath(root, '/child')).toBe(`${root}/child`);
    expect(hostGroupPath(root, '/../../../..')).toBe('/');
    expect(hostGroupPath(root, '/../../../../..')).toBeNull();
    expect(hostGroupPath(root, '/../x/../y')).toBeNull();
  });

  test('mountinfo octal escapes are decoded and mount points map under sysRoot', () => {
    const [mount] = parseCgroupMounts('30 25 0:27 /docker/a\\040b /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n');
    expect(mount).toEqual({ version: 1, root: '/docker/a b', mountPoint: '/sys/fs/cgroup/cpu,cpuacct', controllers: ['rw', 'cpu', 'cpuacct'] });
    expect(mountPointUnder('/fixture/sys', '/sys/fs/cgroup/cpu,cpuacct')).toBe('/fixture/sys/fs/cgroup/cpu,cpuacct');
    expect(mountPointUnder('/sys', '/cgroup/cpu')).toBe('/cgroup/cpu');
  });
});

describe('collectCgroupConfig', () => {
  test('this host (captured, v1): root group unlimited, cpuset 0-1, 2 effective CPUs', async () => {
    const config = expectAvailable(await collectCgroupConfig(treeContext(captured), '/'));
    expect(config).toEqual({ path: '/', version: 1, quotaCores: null, cpusetCpus: '0-1', effectiveCpus: 2 });
    expect(cgroupConfigSchema.parse(config)).toEqual(config);
  });

  test('v1 container (hand-made): 2.5-core quota but pinned to 2 CPUs gives 2 effective CPUs', async () => {
    const root = inventoryFixture('inventory-cgroup-v1-handmade');
    const membership = parseCgroupFile(await readFile(path.join(root, 'proc/4242/cgroup'), 'utf8'));
    expect(await collectCgroupConfig(treeContext(root), membership)).toEqual({
      path: '/docker/abc', version: 1, quotaCores: 2.5, cpusetCpus: '0-1', effectiveCpus: 2,
    });
  });

  test('v2 (hand-made): a 1.5-core quota on the parent pod limits its unlimited container', async () => {
    const root = inventoryFixture('inventory-cgroup-v2-handmade');
    expect(await collectCgroupConfig(treeContext(root), '/kubepods.slice/pod1/ctr1')).toEqual({
      path: '/kubepods.slice/pod1/ctr1', version: 2, quotaCores: 1.5, cpusetCpus: '0-3', effectiveCpus: 1.5,
    });
  });

  test('a parent cpu.max that does not parse makes the config unavailable, not unlimited', async () => {
    const tree = await scratchTree('inventory-cgroup-v2-handmade');
    try {
      await tree.write('sys/fs/cgroup/kubepods.slice/pod1/cpu.max', 'garbage\n');
      expect(await collectCgroupConfig(treeContext(tree.root), '/kubepods.slice/pod1/ctr1')).toEqual({
        unavailable: 'cgroup /kubepods.slice/pod1: cpu.max does not parse',
      });
    } finally {
      await tree.cleanup();
    }
  });

  test('a group that does not exist is unavailable with the reason', async () => {
    const root = inventoryFixture('inventory-cgroup-v2-handmade');
    expect(await collectCgroupConfig(treeContext(root), '/gone.slice')).toEqual({ unavailable: 'cgroup /gone.slice: not found under /sys/fs/cgroup' });
  });

  test('a group outside the cgroup namespace ("/../..") is unavailable rather than mapped onto a wrong directory', async () => {
    const root = inventoryFixture('inventory-cgroup-v2-handmade');
    expect(await collectCgroupConfig(treeContext(root), '/../../kubepods.slice')).toEqual({ unavailable: 'cgroup /../../kubepods.slice: not found under /sys/fs/cgroup' });
  });

  test('no cgroup mount at all is unavailable, not an unlimited group', async () => {
    const tree = await scratchTree();
    try {
      await tree.write('proc/self/mountinfo', '22 27 0:21 / /proc rw,relatime - proc proc rw\n');
      expect(await collectCgroupConfig(treeContext(tree.root), '/')).toEqual({ unavailable: 'cgroups: no cgroup2 or v1 cpu/cpuacct mount in /proc/self/mountinfo' });
    } finally {
      await tree.cleanup();
    }
  });
});

describe('createCgroupCollector', () => {
  test('v2: usage, throttled periods and throttled time become rates for the host group and a watched container', async () => {
    const tree = await scratchTree('inventory-cgroup-v2-handmade');
    try {
      const collector = createCgroupCollector();
      const watched = [{ name: 'server.py', pid: 777 }];
      expect(await collector.collect(treeContext(tree.root, watched, 1000))).toEqual({ unavailable: 'cgroups: warming up, rates start with the next interval' });

      // 2 s later: the container used 3 s of CPU (1.5 cores), throttled in 40 of 40 periods for 1 s in total.
      const ctr = 'sys/fs/cgroup/kubepods.slice/pod1/ctr1/cpu.stat';
      await tree.write(ctr, 'usage_usec 503000000\nnr_periods 1040\nnr_throttled 290\nthrottled_usec 13000000\n');
      await tree.write('sys/fs/cgroup/cpu.stat', 'usage_usec 9006000000\n');
      const samples = expectAvailable(await collector.collect(treeContext(tree.root, watched, 3000)));
      expect(samples).toEqual([
        { path: '/', version: 2, quotaCores: null, cpusetCpus: '0-3', effectiveCpus: 4, usageCores: 3, throttledPeriodsPerS: 0, throttledPct: 0, throttledMsPerS: 0 },
        { path: '/kubepods.slice/pod1/ctr1', version: 2, quotaCores: 1.5, cpusetCpus: '0-3', effectiveCpus: 1.5, usageCores: 1.5, throttledPeriodsPerS: 20, throttledPct: 100, throttledMsPerS: 500 },
      ]);
      for (const sample of samples) cgroupSampleSchema.parse(sample);
    } finally {
      await tree.cleanup();
    }
  });

  test('v1: usage comes from cpuacct.usage (ns), throttling from cpu.stat, and a group shared by two processes is sampled once', async () => {
    const tree = await scratchTree('inventory-cgroup-v1-handmade');
    try {
      await tree.write('proc/4243/cgroup', '11:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc\n');
      const collector = createCgroupCollector();
      const watched = [{ name: 'gunicorn', pid: 4242 }, { name: 'gunicorn', pid: 4243 }];
      await collector.collect(treeContext(tree.root, watched, 0));
      const dir = 'sys/fs/cgroup/cpu,cpuacct/docker/abc';
      await tree.write(`${dir}/cpuacct.usage`, '124000000000\n');
      await tree.write(`${dir}/cpu.stat`, 'nr_periods 5040\nnr_throttled 130\nthrottled_time 3600000000\n');
      const samples = expectAvailable(await collector.collect(treeContext(tree.root, watched, 4000)));
      expect(samples.map((s) => s.path)).toEqual(['/', '/docker/abc']);
      expect(samples[1]).toEqual({
        path: '/docker/abc', version: 1, quotaCores: 2.5, cpusetCpus: '0-1', effectiveCpus: 2,
        usageCores: 1, throttledPeriodsPerS: 2.5, throttledPct: 25, throttledMsPerS: 50,
      });
    } finally {
      await tree.cleanup();
    }
  });

  test('a cpu.stat or cpu.max that does not parse costs that group alone; the host group is still sampled', async () => {
    for (const [file, text] of [['cpu.stat', 'usage_usec 503000000\nnr_throttled lots\n'], ['cpu.max', 'x 100000\n']] as const) {
      const tree = await scratchTree('inventory-cgroup-v2-handmade');
      try {
        const collector = createCgroupCollector();
        const watched = [{ name: 'server.py', pid: 777 }];
        await collector.collect(treeContext(tree.root, watched, 1000));
        await tree.write(`sys/fs/cgroup/kubepods.slice/pod1/ctr1/${file}`, text);
        const samples = expectAvailable(await collector.collect(treeContext(tree.root, watched, 3000)));
        expect(samples.map((sample) => sample.path), file).toEqual(['/']);
      } finally {
        await tree.cleanup();
      }
    }
  });

  test('v1 groups that share the cpu path but not the cpuset path are one sample: the server keys them by path', async () => {
    const tree = await scratchTree('inventory-cgroup-v1-handmade');
    try {
      await tree.write('proc/4243/cgroup', '11:cpuset:/docker/abc\n4:cpu,cpuacct:/\n');
      const collector = createCgroupCollector();
      const watched = [{ name: 'gunicorn', pid: 4243 }];
      await collector.collect(treeContext(tree.root, watched, 0));
      const samples = expectAvailable(await collector.collect(treeContext(tree.root, watched, 1000)));
      expect(samples.map((sample) => [sample.path, sample.cpusetCpus])).toEqual([['/', '0-7']]);
    } finally {
      await tree.cleanup();
    }
  });

  test('a counter that goes backwards (group recreated) gives 0, not a negative rate', async () => {
    const tree = await scratchTree('inventory-cgroup-v2-handmade');
    try {
      const collector = createCgroupCollector();
      await collector.collect(treeContext(tree.root, [], 0));
      await tree.write('sys/fs/cgroup/cpu.stat', 'usage_usec 10\n');
      const [host] = expectAvailable(await collector.collect(treeContext(tree.root, [], 1000)));
      expect(host?.usageCores).toBe(0);
    } finally {
      await tree.cleanup();
    }
  });
});
