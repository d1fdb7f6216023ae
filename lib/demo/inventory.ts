import { createHash } from 'node:crypto';
import type { DiskInventory, Inventory } from '../protocol';
import { demoCpuInventory } from './cpu-models';
import type { DemoHost } from './fleet';
import { servicesOn } from './services';

const GB = 1e9;

const NVME: DiskInventory = { device: 'nvme0n1', class: 'nvme', model: 'SAMSUNG MZQL2960HCJR-00A07', rotational: false, sizeBytes: 960 * GB, hwQueues: 8, scheduler: 'none' };
const SATA: DiskInventory = { device: 'sda', class: 'ssd', model: 'Samsung SSD 870 EVO 1TB', rotational: false, sizeBytes: 1000 * GB, hwQueues: 1, scheduler: 'mq-deadline' };
const VIRTIO: DiskInventory = { device: 'vda', class: 'virtual', model: null, rotational: true, sizeBytes: 80 * GB, hwQueues: 1, scheduler: 'mq-deadline' };

/** The host's disks, and the one its models are read from. */
export function demoDisks(host: DemoHost): { disks: DiskInventory[]; dataPaths: Inventory['dataPaths'] } {
  const nvme = { ...NVME, hwQueues: Math.min(host.vcpus, 32) };
  switch (host.condition) {
    case 'sata-await':
      return { disks: [SATA], dataPaths: [{ path: '/models', device: 'sda', mountPoint: '/', fsType: 'ext4' }] };
    case 'virtual-rotational':
      return { disks: [VIRTIO, nvme], dataPaths: [{ path: '/srv/models', device: 'nvme0n1', mountPoint: '/srv', fsType: 'xfs' }] };
    default:
      return { disks: [nvme], dataPaths: [{ path: '/models', device: 'nvme0n1', mountPoint: '/', fsType: 'ext4' }] };
  }
}

const KERNELS: Record<DemoHost['region'], string> = { oslo: '6.8.0-51-generic', frankfurt: '6.1.0-28-amd64', stockholm: '6.8.0-51-generic' };

/** The host's inventory; the same every time, so the server stores it once. */
export function demoInventory(host: DemoHost): Inventory {
  const { disks, dataPaths } = demoDisks(host);
  const body: Omit<Inventory, 'hash'> = {
    host: { kernel: KERNELS[host.region], memTotalBytes: host.memBytes, onlineCpus: host.vcpus },
    cpu: demoCpuInventory(host),
    disks,
    dataPaths,
    cgroup: { path: '/', version: 2, quotaCores: null, cpusetCpus: null, effectiveCpus: host.vcpus },
    processes: servicesOn(host).flatMap((service) => service.processes.map((p) => p.inventory)),
  };
  return { hash: createHash('sha256').update(JSON.stringify(body)).digest('hex'), ...body };
}
