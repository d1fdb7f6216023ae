import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { reportSchema, type Report } from '../../lib/protocol';
import { copyHostTree } from '../support/copy-host-tree';

// The agent as the Helm chart's DaemonSet runs it: the host's /proc and /sys at other paths (/host/proc, /host/sys),
// the node's name from --hostname. Here the host is a copy of this machine's trees, altered where a test says so.
const repoRoot = path.resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'iw-host-roots-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function agentOnce(procRoot: string, sysRoot: string, args: string[]): Promise<Report> {
  const { stdout } = await promisify(execFile)(
    path.join(repoRoot, 'node_modules/.bin/tsx'),
    ['agent/cli.ts', '--once', '--print', '--proc-root', procRoot, '--sys-root', sysRoot, '--statsd-addr', 'off', '--http-intake-addr', 'off',
      '--state-dir', path.join(scratch, 'state'), ...args],
    { cwd: repoRoot, env: { ...process.env, INFERWATCH_HOSTNAME: '' } },
  );
  return reportSchema.parse(JSON.parse(stdout));
}

function edit(file: string, change: (text: string) => string): void {
  const before = readFileSync(file, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`${file}: the edit changed nothing`);
  writeFileSync(file, after);
}

describe('the agent under --proc-root/--sys-root', () => {
  test('reads a copy of this machine\'s /proc and /sys, not the real ones: values altered in the copy are what it reports', async () => {
    const { procRoot, sysRoot } = copyHostTree(path.join(scratch, 'copy'), [process.pid]);
    // A pid no process has here (above the kernel's pid_max of 4194304), so only the copy can show it.
    const pid = 4_194_399;
    cpSync(path.join(procRoot, String(process.pid)), path.join(procRoot, String(pid)), { recursive: true });
    edit(path.join(procRoot, String(pid), 'status'), (t) => t.replace(/^Threads:\s+\d+$/m, 'Threads:\t77').replace(/^VmRSS:\s+\d+ kB$/m, 'VmRSS:\t  123456 kB'));
    edit(path.join(procRoot, 'meminfo'), (t) => t.replace(/^MemTotal:\s+\d+ kB$/m, 'MemTotal:       98765432 kB'));
    edit(path.join(procRoot, 'cpuinfo'), (t) => t.replace(/^model name\s*:.*$/gm, 'model name\t: Copied-Tree CPU @ 1.23GHz'));
    edit(path.join(procRoot, 'sys/kernel/osrelease'), () => '9.9.9-copied-tree\n');
    edit(path.join(procRoot, 'pressure/cpu'), (t) => t.replace(/^some avg10=[\d.]+/m, 'some avg10=42.42'));

    const report = await agentOnce(procRoot, sysRoot, ['--hostname', 'copied-node-7', '--watch-pid', String(pid)]);

    expect(report.host.hostname).toBe('copied-node-7');
    const inventory = report.inventory!;
    expect(inventory.host.memTotalBytes).toBe(98_765_432 * 1024);
    expect(inventory.host.kernel).toBe('9.9.9-copied-tree');
    expect(inventory.cpu).toMatchObject({ model: 'Copied-Tree CPU @ 1.23GHz' });
    expect(report.pressure).toMatchObject({ cpu: { some: { avg10: 42.42 } } });
    expect(report.processes).toEqual([expect.objectContaining({ pid, threads: 77, rssBytes: 123_456 * 1024 })]);
    // The disks are the copy's block devices.
    expect(Array.isArray(report.disks) && report.disks.length).toBeGreaterThan(0);
    const copiedDisks = readFileSync(path.join(procRoot, 'diskstats'), 'utf8');
    for (const disk of report.disks as { device: string }[]) expect(copiedDisks).toContain(` ${disk.device} `);
  });

  test('names the pod and container of a watched process from a Kubernetes cgroup path, and samples its cgroup through the host\'s mounts, not the agent container\'s', async () => {
    const { procRoot, sysRoot } = copyHostTree(path.join(scratch, 'k8s/host'), [process.pid]);
    const handmade = path.join(repoRoot, 'tests/fixtures/inventory-cgroup-v1-handmade');
    cpSync(path.join(handmade, 'sys/fs'), path.join(sysRoot, 'fs'), { recursive: true });
    // The host's mounts are pid 1's. The agent's own ("self") are its container's: cgroup v1 shows it only its own group.
    mkdirSync(path.join(procRoot, '1'), { recursive: true });
    cpSync(path.join(handmade, 'proc/self/mountinfo'), path.join(procRoot, '1/mountinfo'));
    const agentGroup = '/kubepods/besteffort/pod0a9e47d1-0000-4000-8000-00000000a9e1/0a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d1';
    mkdirSync(path.join(procRoot, 'self'), { recursive: true });
    writeFileSync(path.join(procRoot, 'self/mountinfo'), [
      '1200 1100 0:90 / / ro,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w',
      '1210 1200 0:95 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro',
      '1211 1210 0:96 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755',
      `1214 1211 0:27 ${agentGroup} /sys/fs/cgroup/cpu,cpuacct ro,nosuid,nodev,noexec,relatime master:14 - cgroup cgroup rw,cpu,cpuacct`,
      `1215 1211 0:28 ${agentGroup} /sys/fs/cgroup/cpuset ro,nosuid,nodev,noexec,relatime master:15 - cgroup cgroup rw,cpuset`,
      '1220 1200 0:95 / /host/sys ro,relatime - sysfs sysfs rw',
      '1221 1220 0:27 / /host/sys/fs/cgroup/cpu,cpuacct ro,relatime - cgroup cgroup rw,cpu,cpuacct',
      '1230 1200 0:5 / /host/proc ro,relatime - proc proc rw',
      '',
    ].join('\n'));

    // A model server in a BestEffort pod under Docker's cgroupfs driver, as captured (tests/fixtures/cgroup-paths), its
    // process files copied from this test's own process.
    const pid = 4_194_398;
    cpSync(path.join(procRoot, String(process.pid)), path.join(procRoot, String(pid)), { recursive: true });
    const cgroupFile = readFileSync(path.join(repoRoot, 'tests/fixtures/cgroup-paths/k8s-docker-v1-cgroupfs-besteffort.cgroup'), 'utf8');
    writeFileSync(path.join(procRoot, String(pid), 'cgroup'), cgroupFile);
    const podGroup = '/kubepods/besteffort/pod74ba62da-1a3d-11e7-bb11-080027cb0e22/cb1eadb7abe3a6545e9856411207073277838e1bdc003337c2f8685faeedc32c';
    expect(cgroupFile).toContain(`5:cpu,cpuacct:${podGroup}`);
    const segments = podGroup.split('/').slice(1);
    for (let depth = 1; depth <= segments.length; depth++) {
      const group = segments.slice(0, depth).join('/');
      const leaf = depth === segments.length;
      const cpu = path.join(sysRoot, 'fs/cgroup/cpu,cpuacct', group);
      mkdirSync(cpu, { recursive: true });
      writeFileSync(path.join(cpu, 'cpu.cfs_period_us'), '100000\n');
      writeFileSync(path.join(cpu, 'cpu.cfs_quota_us'), leaf ? '150000\n' : '-1\n');
      writeFileSync(path.join(cpu, 'cpu.stat'), 'nr_periods 100\nnr_throttled 7\nthrottled_time 5000000\n');
      writeFileSync(path.join(cpu, 'cpuacct.usage'), '5000000000\n');
      const cpuset = path.join(sysRoot, 'fs/cgroup/cpuset', group);
      mkdirSync(cpuset, { recursive: true });
      writeFileSync(path.join(cpuset, 'cpuset.cpus'), '0-1\n');
      writeFileSync(path.join(cpuset, 'cpuset.effective_cpus'), '0-1\n');
    }

    const report = await agentOnce(procRoot, sysRoot, ['--hostname', 'k8s-node-3', '--watch-pid', String(pid)]);

    const watched = report.inventory!.processes.find((p) => p.pid === pid);
    expect(watched?.container).toEqual({
      runtime: null,
      id: 'cb1eadb7abe3a6545e9856411207073277838e1bdc003337c2f8685faeedc32c',
      pod: { uid: '74ba62da-1a3d-11e7-bb11-080027cb0e22', qosClass: 'besteffort' },
    });
    expect(watched?.cgroup).toEqual({ path: podGroup, version: 1, quotaCores: 1.5, cpusetCpus: '0-1', effectiveCpus: 1.5 });
    // The host group is the host's root, not the agent's own container.
    expect(Array.isArray(report.cgroups) && report.cgroups.map((c) => c.path)).toEqual(['/', podGroup]);
  });

  test('cgroup v2 in its own cgroup namespace (Kubernetes with containerd): pod paths read as "/../../.." are put back in the host\'s hierarchy', async () => {
    const { procRoot, sysRoot } = copyHostTree(path.join(scratch, 'k8s-v2/host'), [process.pid]);
    // The agent's own container group, the root of its cgroup namespace; "self" of a live /proc is a link to its pid.
    const agentPid = 4_194_397;
    const agentGroup = '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a9e47d1_0000_4000_8000_00000000a9e1.slice/cri-containerd-0a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d10a9e47d1.scope';
    cpSync(path.join(procRoot, String(process.pid)), path.join(procRoot, String(agentPid)), { recursive: true });
    rmSync(path.join(procRoot, 'self'), { recursive: true });
    symlinkSync(String(agentPid), path.join(procRoot, 'self'));
    // The host's cgroup2 mount as the kernel shows it to a reader four levels down in its own namespace.
    mkdirSync(path.join(procRoot, '1'), { recursive: true });
    writeFileSync(path.join(procRoot, '1/mountinfo'), '35 24 0:30 /../../../.. /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n');

    // The watched model server: the captured containerd 1.6 path, as the agent's namespace shows it (up to kubepods.slice).
    const hostPath = readFileSync(path.join(repoRoot, 'tests/fixtures/cgroup-paths/k8s-containerd-1.6-v2-systemd.cgroup'), 'utf8').trim().replace(/^0::/, '');
    expect(hostPath.startsWith('/kubepods.slice/kubepods-besteffort.slice/')).toBe(true);
    const pid = 4_194_396;
    cpSync(path.join(procRoot, String(process.pid)), path.join(procRoot, String(pid)), { recursive: true });
    writeFileSync(path.join(procRoot, String(pid), 'cgroup'), `0::${hostPath.replace(/^\/kubepods\.slice/, '/../../..')}\n`);

    const cgroupRoot = path.join(sysRoot, 'fs/cgroup');
    rmSync(cgroupRoot, { recursive: true, force: true });
    const group = (groupPath: string, files: Record<string, string>) => {
      mkdirSync(path.join(cgroupRoot, groupPath), { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(cgroupRoot, groupPath, name), text);
    };
    group('/', { 'cpu.stat': 'usage_usec 9000000000\n', 'cpuset.cpus.effective': '0-3\n' });
    const stat = 'usage_usec 500000000\nnr_periods 1000\nnr_throttled 250\nthrottled_usec 12000000\n';
    for (const g of [agentGroup, hostPath]) {
      const parts = g.split('/').filter(Boolean);
      for (let depth = 1; depth <= parts.length; depth++) {
        const leaf = depth === parts.length;
        group(`/${parts.slice(0, depth).join('/')}`, { 'cpu.max': leaf && g === hostPath ? '150000 100000\n' : 'max 100000\n', 'cpu.stat': stat });
      }
    }
    group(agentGroup, { 'cgroup.procs': `${agentPid}\n` });
    // A decoy at the same depth that does not hold the agent.
    group('/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod9493223b_520e_4a97_a45f_359dcf967006.slice/cri-containerd-decoy.scope', { 'cgroup.procs': '1\n' });

    const report = await agentOnce(procRoot, sysRoot, ['--hostname', 'k8s-node-4', '--watch-pid', String(pid)]);

    const watched = report.inventory!.processes.find((p) => p.pid === pid);
    expect(watched?.container).toEqual({
      runtime: 'containerd',
      id: '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26',
      pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'besteffort' },
    });
    expect(watched?.cgroup).toEqual({ path: hostPath, version: 2, quotaCores: 1.5, cpusetCpus: '0-3', effectiveCpus: 1.5 });
    expect(report.inventory!.cgroup).toMatchObject({ path: '/', version: 2, quotaCores: null });
    expect(Array.isArray(report.cgroups) && report.cgroups.map((c) => c.path)).toEqual(['/', hostPath]);
  });
});
