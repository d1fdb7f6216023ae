import { defineHostRule } from '../types';
import { disksOf } from '../facts/disk-classes';

/** The udev KERNEL match for a device: its family for virtio and Xen names (stable), else the name itself. */
export function udevKernelMatch(device: string): string {
  if (/^vd[a-z]$/.test(device)) return 'vd[a-z]';
  if (/^xvd[a-z]$/.test(device)) return 'xvd[a-z]';
  return device;
}

export const virtualRotational = defineHostRule({
  id: 'storage.virtual-rotational',
  title: 'Virtual disk reported as rotational',
  category: 'storage',
  severities: ['info'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    return [...disksOf(facts).values()]
      .filter((disk) => disk.class === 'virtual' && disk.rotational === true)
      .map((disk) => {
        const describe = [disk.model, disk.scheduler && `scheduler ${disk.scheduler}`].filter(Boolean).join(', ');
        const rule = `ACTION=="add|change", KERNEL=="${udevKernelMatch(disk.device)}", ATTR{queue/rotational}="0"`;
        return {
          subject: disk.device,
          severity: 'info' as const,
          message:
            `${disk.device} is a virtual disk${describe ? ` (${describe})` : ''} that reports itself rotational, so the kernel treats ` +
            `it as a spinning disk: ${disk.scheduler === 'bfq' ? 'BFQ idles between requests as it would for a disk head' : 'its writeback-throttling target defaults to 75 ms instead of 2 ms'}, ` +
            'and btrfs and swap on it choose their spinning-disk behaviour.',
          remedy:
            'If SSD or NVMe storage backs it (ask the provider when unsure), mark it non-rotational. At once: ' +
            `\`echo 0 > /sys/block/${disk.device}/queue/rotational\`; across reboots, /etc/udev/rules.d/60-virtual-ssd.rules: ` +
            `\`${rule}\`, then \`udevadm control --reload && udevadm trigger --subsystem-match=block --action=change\`. ` +
            (disk.scheduler === 'bfq'
              ? ''
              : `The writeback target was set when the disk appeared: \`echo -1 > /sys/block/${disk.device}/queue/wbt_lat_usec\` re-derives it. `) +
            'On the hypervisor, a SCSI or ' +
            "IDE disk can say so itself: QEMU `rotation_rate=1` (libvirt `<target … rotation_rate='1'/>`, Proxmox `ssd=1`); " +
            'virtio-blk has no such property, so there the udev rule is the fix.',
          evidence: {
            values: [
              { label: 'disk', value: disk.device },
              { label: 'rotational', value: true },
              { label: 'disk model', value: disk.model },
              { label: 'I/O scheduler', value: disk.scheduler },
              { label: 'hardware queues', value: disk.hwQueues },
            ],
          },
        };
      });
  },
});
