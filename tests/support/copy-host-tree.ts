import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Copies the files the agent's collectors read from this machine's /proc and /sys into `dest` as plain files
 * (procfs and sysfs files read as their current content; symlinked directories such as /sys/block/<dev> become real
 * ones), a snapshot that --proc-root/--sys-root can point at. Files the kernel does not offer here are left out.
 */
export function copyHostTree(dest: string, pids: number[]): { procRoot: string; sysRoot: string } {
  const procRoot = path.join(dest, 'proc');
  const sysRoot = path.join(dest, 'sys');
  const copyFile = (from: string, to: string) => {
    let text: string;
    try {
      text = readFileSync(from, 'utf8');
    } catch {
      return;
    }
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, text);
  };
  const copyDirFiles = (from: string, to: string, depth: number, skip: (name: string) => boolean = () => false) => {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      return;
    }
    for (const name of names) {
      if (skip(name)) continue;
      const source = path.join(from, name);
      let isDir: boolean;
      try {
        isDir = statSync(source).isDirectory();
      } catch {
        continue;
      }
      if (isDir) {
        if (depth > 0) copyDirFiles(source, path.join(to, name), depth - 1, skip);
      } else copyFile(source, path.join(to, name));
    }
  };

  for (const file of ['stat', 'meminfo', 'cpuinfo', 'loadavg', 'diskstats', 'sys/kernel/osrelease', 'self/mountinfo', 'self/cgroup']) {
    copyFile(path.join('/proc', file), path.join(procRoot, file));
  }
  copyDirFiles('/proc/pressure', path.join(procRoot, 'pressure'), 0);
  for (const pid of pids) {
    for (const file of ['stat', 'status', 'comm', 'cmdline', 'cgroup', 'maps', 'environ', 'mountinfo']) {
      copyFile(path.join('/proc', String(pid), file), path.join(procRoot, String(pid), file));
    }
  }

  copyFile('/sys/devices/system/cpu/online', path.join(sysRoot, 'devices/system/cpu/online'));
  for (const cpu of readdirSync('/sys/devices/system/cpu').filter((name) => /^cpu\d+$/.test(name))) {
    for (const sub of ['topology', 'cpufreq']) {
      copyDirFiles(path.join('/sys/devices/system/cpu', cpu, sub), path.join(sysRoot, 'devices/system/cpu', cpu, sub), 0);
    }
  }
  copyDirFiles('/sys/devices/system/node', path.join(sysRoot, 'devices/system/node'), 1, (name) => !/^node\d+$|^cpulist$|^online$/.test(name));
  copyFile('/sys/hypervisor/type', path.join(sysRoot, 'hypervisor/type'));
  for (const dev of readdirSync('/sys/block')) {
    const from = path.join('/sys/block', dev);
    for (const file of ['stat', 'size', 'removable', 'ro', 'dev']) copyFile(path.join(from, file), path.join(sysRoot, 'block', dev, file));
    copyDirFiles(path.join(from, 'queue'), path.join(sysRoot, 'block', dev, 'queue'), 0);
  }
  return { procRoot, sysRoot };
}
