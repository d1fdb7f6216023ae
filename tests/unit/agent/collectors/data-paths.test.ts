import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { collectDataPaths } from '../../../../agent/collectors/disks';
import { parseMountinfo } from '../../../../agent/collectors/mountinfo';
import { dataPathSchema } from '../../../../lib/protocol';
import { fixture } from './two-readings';

const mixedProc = fixture('handmade', 'mixed-disks', 't0', 'proc');
const mixedSys = fixture('handmade', 'mixed-disks', 'sys');

describe('parseMountinfo', () => {
  test('reads device numbers, mount points and fs types from the mountinfo captured on the Debian KVM guest', async () => {
    const mounts = parseMountinfo(await readFile(fixture('debian-kvm', 'proc', 'self', 'mountinfo'), 'utf8'));
    expect(mounts.find((m) => m.mountPoint === '/')).toEqual({ majorMinor: '254:0', root: '/', mountPoint: '/', fsType: 'ext4', source: '/dev/vda', superOptions: 'rw,discard,resv_strict,resuid=65534,resgid=65534' });
    expect(mounts.find((m) => m.mountPoint === '/sys/fs/cgroup/cpu')).toMatchObject({ fsType: 'cgroup', majorMinor: '0:29' });
  });

  test('decodes octal escapes in mount points', () => {
    const [mount] = parseMountinfo('25 22 254:17 / /mnt/scratch\\040space rw shared:4 - ext4 /dev/vdb1 rw\n');
    expect(mount?.mountPoint).toBe('/mnt/scratch space');
  });
});

describe('collectDataPaths', () => {
  test('maps a path on the Debian KVM guest root to the virtio disk holding it', async () => {
    expect(await collectDataPaths(fixture('debian-kvm', 'proc'), fixture('debian-kvm', 'sys'), ['/var/lib/models/llama.gguf'])).toEqual([
      { path: '/var/lib/models/llama.gguf', device: 'vda', mountPoint: '/', fsType: 'ext4' },
    ]);
  });

  test('finds the longest mount-point prefix and the whole disk behind partitions, LVM, md, btrfs and tmpfs', async () => {
    const paths = [
      '/srv/models/llama/weights.bin',
      '/srv/models/cache/tokens',
      '/srv/models-old/x',
      '/boot/efi/EFI',
      '/mnt/scratch space/run',
      '/var/lib/btrfs/sub/file',
    ];
    const result = await collectDataPaths(mixedProc, mixedSys, paths);
    expect(result).toEqual([
      { path: '/srv/models/llama/weights.bin', device: 'md0', mountPoint: '/srv/models', fsType: 'xfs' },
      { path: '/srv/models/cache/tokens', device: null, mountPoint: '/srv/models/cache', fsType: 'tmpfs' },
      { path: '/srv/models-old/x', device: 'nvme0n1', mountPoint: '/', fsType: 'ext4' },
      { path: '/boot/efi/EFI', device: 'nvme0n1', mountPoint: '/boot/efi', fsType: 'vfat' },
      { path: '/mnt/scratch space/run', device: 'vdb', mountPoint: '/mnt/scratch space', fsType: 'ext4' },
      { path: '/var/lib/btrfs/sub/file', device: 'sdb', mountPoint: '/var/lib/btrfs', fsType: 'btrfs' },
    ]);
    for (const dataPath of result) expect(dataPathSchema.parse(dataPath)).toEqual(dataPath);
  });

  test('returns nulls when mountinfo cannot be read', async () => {
    expect(await collectDataPaths('/nonexistent/proc', mixedSys, ['/data'])).toEqual([
      { path: '/data', device: null, mountPoint: null, fsType: null },
    ]);
  });
});
